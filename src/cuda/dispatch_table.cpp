// auto's table (dispatch_table.hpp says how a row is read) and its lookup.
//
// To add a row: measure the candidates on the shapes in question (`fp4gemm bench --backend
// cuda-decode,cuda-wgmma,cuda-dequant-cublas,cuda-mma -m ...`), commit the result under bench/results/, and put the
// row above the architecture's catch-all row, naming that file in a comment and the numbers that
// decided it in `basis`. table_fault (checked at compile time below) rejects a table some shape
// would fall through.
#include "cuda/dispatch_table.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "fp4gemm/error.hpp"

namespace fp4gemm::cuda {
namespace {

constexpr DispatchRow kTable[] = {
    // sm_90 (H100, H200). bench/results/h200_decode_v3/bench_6144_16384.txt (cuda-decode v3),
    // bench/results/h200_gpu_backends/bench_6144.txt and h200_decode_v1/bench_a.txt (cuda-mma):
    // on 6144x6144 w4a16 the decode kernel beats cuda-mma at every M up to 32 (both lose to
    // cublas-bf16 at M = 16 and 32, which is not ours to pick).
    {.sm = 90, .m_max = 32, .backend = "cuda-decode",
     .basis = "H200 6144x6144 w4a16: cuda-decode 15.5 / 24.9 / 37.5 us, cuda-mma 29.2 / 29.4 / "
              "56.3 us at M = 1 / 16 / 32"},
    // Past the decode kernels' M: bench/results/h200_dispatch_grid/grid_6144.txt (6144 x 6144
    // w4a16, one run): cuda-wgmma beats cuda-mma from M = 33 on, and cuda-dequant-cublas (FP4 ->
    // bf16 each call, then cuBLAS) beats cuda-wgmma from M = 256 on; prefill_shapes.txt and
    // prefill_2048.txt: the same order at M = 1024 / 4096 on 4096 x 6144 and 6144 x 2048, and on
    // 16384 x 6144 at M = 1024 cuda-wgmma is 4 % faster (356.7 / 370.7 us, within auto's 5 %).
    {.sm = 90, .m_max = kSm90DequantCublasMinM - 1, .backend = "cuda-wgmma",
     .basis = "H200 6144x6144 w4a16: cuda-wgmma 44.8 / 45.7 us, cuda-mma 53.3 / 97.7 us, "
              "cuda-dequant-cublas 57.6 / 59.3 us at M = 33 / 128"},
    {.sm = 90, .backend = "cuda-dequant-cublas",
     .basis = "H200 6144x6144 w4a16: cuda-dequant-cublas 65.8 / 138.1 / 446.9 / 871.1 us, cuda-wgmma "
              "70.4 / 205.0 / 538.2 / 1097.7 us at M = 256 / 1024 / 4096 / 8192"},
    // Other architectures (sm_80, sm_89, sm_100, sm_120, ...): no measurement of their own yet;
    // the decode boundary is the H200's (the kernels take M <= 32), cuda-mma above it.
    {.sm = kOtherSm, .m_max = 32, .backend = "cuda-decode",
     .basis = "the sm_90 measurement: cuda-decode beats cuda-mma up to M = 32 on the H200"},
    {.sm = kOtherSm, .backend = "cuda-mma",
     .basis = "no measurement off Hopper yet (cuda-dequant-cublas was timed on the H200 only)"},
};
static_assert(table_fault(kTable).empty(), "auto's dispatch table is malformed (table_fault)");

bool takes(const DispatchRow& row, const GemmShape& shape) {
  return shape.m <= row.m_max && shape.n <= row.n_max && shape.k <= row.k_max;
}

}  // namespace

std::span<const DispatchRow> dispatch_table() { return kTable; }

std::size_t dispatch_row(std::span<const DispatchRow> table, int sm, const GemmShape& shape) {
  const std::string_view fault = table_fault(table);
  require(fault.empty(), "dispatch table: {}", fault);
  const bool own_rows =
      std::any_of(table.begin(), table.end(), [sm](const DispatchRow& r) { return r.sm == sm; });
  const int key = own_rows ? sm : kOtherSm;
  for (std::size_t i = 0; i < table.size(); ++i)
    if (table[i].sm == key && takes(table[i], shape)) return i;
  throw Error("dispatch table: no row takes the shape although table_fault found none missing");
}

std::string describe_row(std::span<const DispatchRow> table, std::size_t row, int sm) {
  const DispatchRow& r = table[row];
  // The rows above of the same architecture that bound only M cut off every M up to theirs.
  std::int64_t m_first = 1;
  for (std::size_t j = 0; j < row; ++j)
    if (table[j].sm == r.sm && table[j].n_max == kAnyExtent && table[j].k_max == kAnyExtent)
      m_first = std::max(m_first, table[j].m_max + 1);
  std::string shapes = r.m_max != kAnyExtent ? fmt::format("M {}..{}", m_first, r.m_max)
                       : m_first > 1         ? fmt::format("M >= {}", m_first)
                                             : std::string("any M");
  if (r.n_max != kAnyExtent) shapes += fmt::format(", N <= {}", r.n_max);
  if (r.k_max != kAnyExtent) shapes += fmt::format(", K <= {}", r.k_max);
  const std::string arch = r.sm == kOtherSm ? fmt::format("sm_{} (default rows)", sm) : fmt::format("sm_{}", sm);
  return fmt::format("{}, {}: {} ({})", arch, shapes, r.backend, r.basis);
}

std::vector<std::string_view> dispatch_candidates(std::string_view pick) {
  std::vector<std::string_view> names{pick};
  for (std::string_view name : kFallbackOrder)
    if (name != pick) names.push_back(name);
  return names;
}

Dispatch resolve_dispatch(std::span<const DispatchRow> table, int sm, const GemmShape& shape,
                          const CandidateCheck& check) {
  const std::size_t row = dispatch_row(table, sm, shape);
  Dispatch dispatch;
  dispatch.rule = describe_row(table, row, sm);
  for (std::string_view candidate : dispatch_candidates(table[row].backend)) {
    const Verdict verdict = check(candidate);
    if (verdict) {
      dispatch.chosen = std::string(candidate);
      return dispatch;
    }
    dispatch.refused.push_back({std::string(candidate), verdict.reason});
  }
  return dispatch;
}

}  // namespace fp4gemm::cuda
