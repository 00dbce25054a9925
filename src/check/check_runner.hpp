#pragma once
// The engine of `fp4gemm check`: every backend on a grid of problems against the CPU reference.
// For each problem: draw fresh random operands (seeded), compute the reference once, then per
// backend: can_implement? -> prepare -> poison D -> run -> synchronize -> verify every element.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "check/verify.hpp"
#include "fp4gemm/backend.hpp"

namespace fp4gemm {

enum class CheckStatus { pass, fail, skip };
std::string_view to_string(CheckStatus s);

struct CheckRow {
  std::string backend;
  GemmProblem problem;
  CheckStatus status = CheckStatus::skip;
  VerifyResult verify;       // pass/fail rows
  std::string note;          // skip reason, or the error a backend threw
};

struct CheckGridOptions {
  std::vector<Fp4Format> formats{Fp4Format::nvfp4, Fp4Format::mxfp4};
  std::vector<Mode> modes{Mode::w4a16, Mode::w4a4};
  bool include_large = true;  // the M = 4096 rows (slow for the CPU reference on a small host)
};

// The default grid: the seed's shapes (M x 768 x 6144, M x 2048 x 6144), M = 1, 2, 3, 17, 256,
// 4096, awkward shapes (N = 1, odd N, K = one block, K = 3 blocks, K not a multiple of 64),
// both scale layouts, and each output dtype on some rows.
std::vector<GemmProblem> default_check_grid(const CheckGridOptions& options);

using CheckRowCallback = std::function<void(const CheckRow&)>;
// Rows in grid order, problem-major; `on_row` (optional) sees each as soon as it is done.
std::vector<CheckRow> run_check(const std::vector<GemmProblem>& grid,
                                const std::vector<const Backend*>& backends, std::uint64_t seed,
                                const CheckRowCallback& on_row = {});

}  // namespace fp4gemm
