#include "check/check_runner.hpp"

#include "fp4gemm/error.hpp"

namespace fp4gemm {

std::string_view to_string(CheckStatus s) {
  switch (s) {
    case CheckStatus::pass: return "PASS";
    case CheckStatus::fail: return "FAIL";
    case CheckStatus::skip: return "SKIP";
  }
  return "?";
}

std::vector<GemmProblem> default_check_grid(const CheckGridOptions& options) {
  struct Row {
    std::int64_t m, n, k_blocks;  // K in blocks of the format (16 NVFP4, 32 MXFP4), or
    std::int64_t k;               // a fixed K (0: use k_blocks)
    ScaleLayout layout;
    DType out;
    bool large;
  };
  using L = ScaleLayout;
  const std::vector<Row> rows = {
      // the seed's per-GPU TP8 shapes (attention projection, MoE up-projection)
      {1, 768, 0, 6144, L::linear, DType::f32, false},
      {2, 768, 0, 6144, L::swizzled, DType::f32, false},
      {3, 2048, 0, 6144, L::linear, DType::bf16, false},
      {17, 768, 0, 6144, L::linear, DType::f32, false},
      {256, 768, 0, 6144, L::swizzled, DType::f32, false},
      {4096, 768, 0, 6144, L::linear, DType::bf16, true},
      // awkward: one block of K, N = 1, odd N and M, K not a multiple of 64 or of 128
      {1, 1, 1, 0, L::linear, DType::f32, false},
      {3, 17, 1, 0, L::swizzled, DType::f16, false},
      {5, 127, 3, 0, L::linear, DType::f32, false},
      {33, 129, 5, 0, L::swizzled, DType::bf16, false},
      {130, 259, 35, 0, L::linear, DType::f16, false},
  };
  std::vector<GemmProblem> grid;
  for (Fp4Format format : options.formats)
    for (Mode mode : options.modes)
      for (const Row& row : rows) {
        if (row.large && !options.include_large) continue;
        const std::int64_t k = row.k ? row.k : row.k_blocks * block_size(format);
        grid.push_back(GemmProblem{{row.m, row.n, k}, mode, format, row.layout, row.out});
      }
  return grid;
}

std::vector<CheckRow> run_check(const std::vector<GemmProblem>& grid,
                                const std::vector<const Backend*>& backends, std::uint64_t seed,
                                const CheckRowCallback& on_row) {
  std::vector<CheckRow> rows;
  for (std::size_t p = 0; p < grid.size(); ++p) {
    const GemmProblem& problem = grid[p];
    const GemmOperands operands = random_operands(problem, seed + p);
    const ReferenceResult reference = reference_gemm(operands);
    for (const Backend* backend : backends) {
      CheckRow row{std::string(backend->name()), problem, CheckStatus::skip, {}, {}};
      if (const Verdict v = backend->can_implement(problem); !v) {
        row.note = v.reason;
      } else {
        try {
          auto run = backend->prepare(operands);
          run->poison_output();
          run->run();
          run->synchronize();
          row.verify = verify_output(run->output(), reference, problem, backend->accuracy());
          row.status = row.verify.passed ? CheckStatus::pass : CheckStatus::fail;
        } catch (const Error& e) {
          row.status = CheckStatus::fail;
          row.note = e.what();
        }
      }
      if (on_row) on_row(row);
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace fp4gemm
