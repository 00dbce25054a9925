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
    // sm_90 (H100, H200): bench/results/stop38_decide/call_c (an H100, cuda-wgmma v6, every kernel
    // auto may pick on issue 5's four shapes N x K = 6144 x 6144, 16384 x 6144, 4096 x 6144 and
    // 6144 x 2048 at M = 1..8192, one bench process per shape and M range). Each row's pick is
    // within 5 % of the fastest of our kernels at every measured point it takes.
    {.sm = 90, .m_max = 32, .backend = "cuda-decode",
     .basis = "H100 w4a16, M = 1..32: cuda-decode 13.3 / 25.3 / 9.2 / 6.8 us at M = 1 on the four "
              "shapes, cuda-mma 29.4 / 62.5 / 21.0 / 12.5, cuda-wgmma 36.1 / 55.6 / 28.0 / 22.4; at M = "
              "32 16384 x 6144 cuda-wgmma 54.8 against 55.1"},
    {.sm = 90, .m_max = 128, .k_max = 2048, .backend = "cuda-dequant-cublas",
     .basis = "H100 6144x2048 w4a16: cuda-dequant-cublas 21.6 / 20.9 / 21.4 us, cuda-wgmma 22.2 / "
              "22.5 / 22.3 us at M = 33 / 64 / 128"},
    {.sm = 90, .m_max = 256, .backend = "cuda-wgmma",
     .basis = "H100 w4a16, M = 33..256 (K = 6144; M = 256 at K = 2048): cuda-wgmma 35.1 / 58.4 us on "
              "6144x6144 at M = 33 / 256, cuda-dequant-cublas 67.8 / 74.0, cuda-mma 53.4 / 179.9; "
              "6144x2048 M = 256: cuda-wgmma 20.6, cuda-dequant-cublas 26.5"},
    {.sm = 90, .k_max = 2048, .backend = "cuda-dequant-cublas",
     .basis = "H100 6144x2048 w4a16: cuda-dequant-cublas 33.4 / 48.0 / 82.3 / 147.2 / 281.2 us, "
              "cuda-wgmma 52.9 / 55.8 / 87.4 / 167.5 / 322.8 us at M = 512 / 1024 / 2048 / 4096 / 8192"},
    {.sm = 90, .m_max = 512, .n_max = 4096, .backend = "cuda-wgmma",
     .basis = "H100 4096x6144 w4a16 M = 512: cuda-wgmma 46.8 us, cuda-dequant-cublas 60.9 us"},
    {.sm = 90, .m_max = 512, .n_max = 6144, .backend = "cuda-dequant-cublas",
     .basis = "H100 6144x6144 w4a16 M = 512: cuda-dequant-cublas 87.5 us, cuda-wgmma 93.9 us (128 "
              "tokens x 2 K-splits)"},
    {.sm = 90, .m_max = 4096, .backend = "cuda-wgmma",
     .basis = "H100 w4a16 at M = 4096: cuda-wgmma 414.8 / 1124.5 / 274.1 us, cuda-dequant-cublas "
              "430.4 / 1144.5 / 281.4 us on 6144x6144 / 16384x6144 / 4096x6144; 16384x6144 M = 512: "
              "141.2 / 226.9 us"},
    {.sm = 90, .backend = "cuda-dequant-cublas",
     .basis = "H100 w4a16 at M = 8192: cuda-dequant-cublas 816.4 / 2161.3 / 541.3 us, cuda-wgmma "
              "833.9 / 2844.7 / 549.7 us on 6144x6144 / 16384x6144 / 4096x6144"},
    // Other architectures (sm_80, sm_89, sm_100, sm_120, ...): no measurement of their own yet;
    // the decode boundary is sm_90's (the kernels take M <= 32), cuda-mma above it.
    {.sm = kOtherSm, .m_max = 32, .backend = "cuda-decode",
     .basis = "the sm_90 measurement: cuda-decode beats cuda-mma up to M = 32 on the H100"},
    {.sm = kOtherSm, .backend = "cuda-mma",
     .basis = "no measurement off Hopper yet (cuda-dequant-cublas was timed on Hopper only)"},
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
