// auto's dispatch table, without a GPU: every row keyed on M alone selected at its first and last M
// (and not past it), the sm_90 rows against the grid measured, architectures without rows of their
// own on the default rows, the fallback order when a candidate refuses (with the real can_implement
// of each backend: f16 output on sm_90 at M = 1024 goes from cuda-dequant-cublas to cuda-wgmma, and
// with NVFP4 K = 48 on to cuda-mma), malformed tables rejected, and the candidates' declared
// accuracy equal to auto's.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "cuda/dispatch_table.hpp"
#include "fp4gemm/backend.hpp"
#include "fp4gemm/error.hpp"

namespace fp4gemm::cuda {
namespace {

using testing::HasSubstr;

// The backend the real table picks first for a GPU of `sm` and M (N = K = 6144).
std::string pick(int sm, std::int64_t m) {
  const auto table = dispatch_table();
  return std::string(table[dispatch_row(table, sm, {m, 6144, 6144})].backend);
}

// Everything accepted: the table's own pick wins.
const CandidateCheck kAllAccept = [](std::string_view) { return Verdict::yes(); };

// The real backends' admission rules, which need no GPU (availability is left out: no device here).
CandidateCheck admission_of(const GemmProblem& problem) {
  return [problem](std::string_view name) { return find_backend(name).can_implement(problem); };
}

TEST(DispatchTable, IsWellFormed) { EXPECT_EQ(table_fault(dispatch_table()), ""); }

// Each row keyed on M alone is the pick at its first M and its last M, and the one after its last M
// is not it (a boundary moved by one in either direction fails here); N and K far past every
// N- or K-keyed row, so only the M-only rows compete. The N- and K-keyed sm_90 rows are checked at
// their measured points below.
TEST(DispatchTable, EveryMOnlyRowTakesExactlyItsRangeOfM) {
  const auto table = dispatch_table();
  constexpr std::int64_t kPastKeyedRows = std::int64_t(1) << 20;
  std::int64_t first = 1;
  for (std::size_t i = 0; i < table.size(); ++i) {
    const DispatchRow& row = table[i];
    if (i > 0 && table[i - 1].sm != row.sm) first = 1;
    if (row.n_max != kAnyExtent || row.k_max != kAnyExtent) continue;
    const int sm = row.sm == kOtherSm ? 86 : row.sm;
    SCOPED_TRACE(describe_row(table, i, sm));
    const auto row_of = [&](std::int64_t m) {
      return dispatch_row(table, sm, {m, kPastKeyedRows, kPastKeyedRows});
    };
    EXPECT_EQ(row_of(first), i);
    const std::int64_t last = row.m_max == kAnyExtent ? std::int64_t(1) << 40 : row.m_max;
    EXPECT_EQ(row_of(last), i);
    if (row.m_max != kAnyExtent) {
      EXPECT_NE(row_of(row.m_max + 1), i);
      first = row.m_max + 1;
    }
  }
}

// The sm_90 rows against the grid they came from (bench/results/stop38_decide/call_c, an H100,
// w4a16): at every one of its 60 points the row's pick is within 5 % of the fastest of the four
// kernels measured there (0: not measured, cuda-decode takes M <= 32 only).
TEST(DispatchTable, Sm90PicksAreWithin5PercentOfTheFastestOnIssue5Grid) {
  const auto table = dispatch_table();
  struct Point {
    std::int64_t m, n, k;
    double us[4];  // cuda-decode, cuda-mma, cuda-wgmma, cuda-dequant-cublas
  };
  constexpr std::string_view kNames[4] = {"cuda-decode", "cuda-mma", "cuda-wgmma", "cuda-dequant-cublas"};
  const Point points[] = {
      {1, 4096, 6144, {9.19, 20.99, 27.99, 0}},
      {2, 4096, 6144, {8.89, 21.31, 28.14, 0}},
      {4, 4096, 6144, {9.09, 21.28, 28.74, 0}},
      {8, 4096, 6144, {10.36, 21.21, 28.02, 0}},
      {16, 4096, 6144, {11.87, 21.45, 27.95, 0}},
      {32, 4096, 6144, {20.34, 37.22, 28.19, 0}},
      {33, 4096, 6144, {0, 36.91, 28.20, 46.00}},
      {64, 4096, 6144, {0, 37.57, 27.60, 44.49}},
      {128, 4096, 6144, {0, 61.04, 27.90, 47.22}},
      {256, 4096, 6144, {0, 103.55, 36.40, 54.36}},
      {512, 4096, 6144, {0, 178.11, 46.79, 60.92}},
      {1024, 4096, 6144, {0, 348.67, 71.60, 89.02}},
      {2048, 4096, 6144, {0, 693.69, 138.25, 152.94}},
      {4096, 4096, 6144, {0, 1381.73, 274.12, 281.42}},
      {8192, 4096, 6144, {0, 2760.10, 549.73, 541.25}},
      {1, 6144, 2048, {6.78, 12.47, 22.38, 0}},
      {2, 6144, 2048, {7.12, 12.85, 22.68, 0}},
      {4, 6144, 2048, {7.05, 12.77, 22.37, 0}},
      {8, 6144, 2048, {7.19, 12.87, 22.47, 0}},
      {16, 6144, 2048, {9.79, 13.06, 22.47, 0}},
      {32, 6144, 2048, {13.16, 25.65, 22.31, 0}},
      {33, 6144, 2048, {0, 25.28, 22.16, 21.61}},
      {64, 6144, 2048, {0, 25.90, 22.47, 20.94}},
      {128, 6144, 2048, {0, 45.58, 22.33, 21.36}},
      {256, 6144, 2048, {0, 64.67, 20.63, 26.50}},
      {512, 6144, 2048, {0, 126.99, 52.92, 33.36}},
      {1024, 6144, 2048, {0, 185.66, 55.77, 48.01}},
      {2048, 6144, 2048, {0, 370.99, 87.43, 82.27}},
      {4096, 6144, 2048, {0, 747.87, 167.49, 147.21}},
      {8192, 6144, 2048, {0, 1479.90, 322.82, 281.21}},
      {1, 6144, 6144, {13.25, 29.36, 36.05, 0}},
      {2, 6144, 6144, {13.05, 29.32, 36.21, 0}},
      {4, 6144, 6144, {13.37, 29.32, 36.56, 0}},
      {8, 6144, 6144, {12.46, 29.28, 36.62, 0}},
      {16, 6144, 6144, {13.68, 29.70, 36.27, 0}},
      {32, 6144, 6144, {25.18, 53.70, 36.09, 0}},
      {33, 6144, 6144, {0, 53.36, 35.09, 67.80}},
      {64, 6144, 6144, {0, 54.27, 35.88, 67.75}},
      {128, 6144, 6144, {0, 102.75, 35.96, 68.50}},
      {256, 6144, 6144, {0, 179.89, 58.38, 74.02}},
      {512, 6144, 6144, {0, 345.24, 93.89, 87.52}},
      {1024, 6144, 6144, {0, 521.24, 134.99, 135.54}},
      {2048, 6144, 6144, {0, 1038.34, 208.70, 235.96}},
      {4096, 6144, 6144, {0, 2068.48, 414.79, 430.40}},
      {8192, 6144, 6144, {0, 4110.82, 833.89, 816.43}},
      {1, 16384, 6144, {25.28, 62.47, 55.63, 0}},
      {2, 16384, 6144, {27.41, 62.57, 57.63, 0}},
      {4, 16384, 6144, {24.18, 63.33, 57.20, 0}},
      {8, 16384, 6144, {27.97, 62.51, 56.04, 0}},
      {16, 16384, 6144, {29.27, 63.47, 55.76, 0}},
      {32, 16384, 6144, {55.08, 113.71, 54.76, 0}},
      {33, 16384, 6144, {0, 114.56, 53.18, 168.80}},
      {64, 16384, 6144, {0, 114.97, 51.51, 170.97}},
      {128, 16384, 6144, {0, 172.34, 48.06, 170.46}},
      {256, 16384, 6144, {0, 342.13, 73.32, 175.67}},
      {512, 16384, 6144, {0, 680.53, 141.18, 226.86}},
      {1024, 16384, 6144, {0, 1374.88, 279.90, 350.08}},
      {2048, 16384, 6144, {0, 2741.49, 559.99, 602.93}},
      {4096, 16384, 6144, {0, 5465.57, 1124.48, 1144.45}},
      {8192, 16384, 6144, {0, 10652.90, 2844.67, 2161.28}},
  };
  for (const Point& p : points) {
    SCOPED_TRACE(fmt::format("{} x {} x {}", p.m, p.n, p.k));
    const std::string_view pick = table[dispatch_row(table, 90, {p.m, p.n, p.k})].backend;
    double fastest = 0, picked = 0;
    for (int i = 0; i < 4; ++i) {
      if (p.us[i] > 0 && (fastest == 0 || p.us[i] < fastest)) fastest = p.us[i];
      if (kNames[i] == pick) picked = p.us[i];
    }
    ASSERT_GT(picked, 0) << pick << " was not measured here";
    EXPECT_LE(picked, 1.05 * fastest) << pick;
  }
}

// Every other architecture: decode up to M = 32, cuda-mma above; never cuda-wgmma (sm_90a only).
TEST(DispatchTable, OtherArchitecturesDecodeUpTo32ThenMma) {
  for (int sm : {80, 86, 89, 100, 103, 120}) {
    SCOPED_TRACE("sm_" + std::to_string(sm));
    EXPECT_EQ(pick(sm, 1), "cuda-decode");
    EXPECT_EQ(pick(sm, 32), "cuda-decode");
    for (std::int64_t m : {33, 128, 256, 8192}) EXPECT_EQ(pick(sm, m), "cuda-mma") << "M = " << m;
  }
}

TEST(DispatchTable, RuleNamesArchitectureRangeBackendAndMeasurement) {
  const auto table = dispatch_table();
  const Dispatch wgmma = resolve_dispatch(table, 90, {64, 6144, 6144}, kAllAccept);
  EXPECT_THAT(wgmma.rule, HasSubstr("sm_90, M 33..256: cuda-wgmma (H100 w4a16"));
  const Dispatch dequant = resolve_dispatch(table, 90, {8192, 6144, 6144}, kAllAccept);
  EXPECT_THAT(dequant.rule, HasSubstr("sm_90, M >= 4097: cuda-dequant-cublas"));
  EXPECT_THAT(dequant.rule, HasSubstr("H100 w4a16 at M = 8192: cuda-dequant-cublas"));
  const Dispatch by_k = resolve_dispatch(table, 90, {64, 6144, 2048}, kAllAccept);
  EXPECT_THAT(by_k.rule, HasSubstr("sm_90, M 33..128, K <= 2048: cuda-dequant-cublas"));
  const Dispatch past_256_by_k = resolve_dispatch(table, 90, {1024, 6144, 2048}, kAllAccept);
  EXPECT_THAT(past_256_by_k.rule, HasSubstr("sm_90, M >= 257, K <= 2048: cuda-dequant-cublas"));
  const Dispatch by_n = resolve_dispatch(table, 90, {512, 4096, 6144}, kAllAccept);
  EXPECT_THAT(by_n.rule, HasSubstr("sm_90, M 257..512, N <= 4096: cuda-wgmma"));
  const Dispatch by_n_dequant = resolve_dispatch(table, 90, {512, 6144, 6144}, kAllAccept);
  EXPECT_THAT(by_n_dequant.rule,
              HasSubstr("sm_90, M 257..512, N <= 6144: cuda-dequant-cublas (H100 6144x6144 w4a16 M = 512"));
  const Dispatch decode = resolve_dispatch(table, 90, {1, 6144, 6144}, kAllAccept);
  EXPECT_THAT(decode.rule, HasSubstr("sm_90, M 1..32: cuda-decode (H100 w4a16"));
  const Dispatch other = resolve_dispatch(table, 89, {1, 6144, 6144}, kAllAccept);
  EXPECT_THAT(other.rule, HasSubstr("sm_89 (default rows), M 1..32: cuda-decode"));
  for (const Dispatch* d : {&wgmma, &dequant, &by_k, &past_256_by_k, &by_n, &by_n_dequant, &decode, &other})
    EXPECT_TRUE(d->refused.empty());
  EXPECT_EQ(wgmma.chosen, "cuda-wgmma");
  EXPECT_EQ(dequant.chosen, "cuda-dequant-cublas");
  EXPECT_EQ(decode.chosen, "cuda-decode");
}

// f16 output at M = 1024: cuda-dequant-cublas refuses it (cuBLAS has no bf16 -> f16 GEMM),
// cuda-decode the M, and cuda-wgmma takes it; with NVFP4 K = 48 cuda-wgmma refuses too (TMA row
// alignment) and the problem lands on cuda-mma, each refusal's reason recorded in order.
TEST(DispatchFallback, F16OutputFallsToWgmmaAndNvfp4K48OnToMma) {
  const GemmProblem f16{{1024, 768, 64}, Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::linear, DType::f16};
  const Dispatch to_wgmma = resolve_dispatch(dispatch_table(), 90, f16.shape, admission_of(f16));
  EXPECT_EQ(to_wgmma.chosen, "cuda-wgmma");
  ASSERT_EQ(to_wgmma.refused.size(), 2u);
  EXPECT_EQ(to_wgmma.refused[0].backend, "cuda-dequant-cublas");
  EXPECT_THAT(to_wgmma.refused[0].reason, HasSubstr("f16 output"));
  EXPECT_EQ(to_wgmma.refused[1].backend, "cuda-decode");
  EXPECT_THAT(to_wgmma.refused[1].reason, HasSubstr("M = 1024"));

  const GemmProblem k48{{1024, 768, 48}, Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::linear, DType::f16};
  const Dispatch d = resolve_dispatch(dispatch_table(), 90, k48.shape, admission_of(k48));
  EXPECT_EQ(d.chosen, "cuda-mma");
  ASSERT_EQ(d.refused.size(), 3u);
  EXPECT_EQ(d.refused[0].backend, "cuda-dequant-cublas");
  EXPECT_EQ(d.refused[2].backend, "cuda-wgmma");
  EXPECT_THAT(d.refused[2].reason, HasSubstr("K = 48"));
  EXPECT_THAT(d.refused[2].reason, HasSubstr("TMA"));
  EXPECT_THAT(d.describe_refusals(), HasSubstr("cuda-wgmma: K = 48"));
  EXPECT_THAT(d.rule, HasSubstr("cuda-dequant-cublas"));
}

// NVFP4 K = 48 with bf16 output at M = 200: cuda-wgmma (the pick) refuses it and the problem goes
// to cuda-dequant-cublas, the faster of the two that take it (26.5 against cuda-mma's 64.7 us at
// 256 x 6144 x 2048, bench/results/stop38_decide/call_c), not down to cuda-mma.
TEST(DispatchFallback, WgmmaRefusalAtSmallMLandsOnDequantCublas) {
  const GemmProblem k48{{200, 768, 48}, Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::linear, DType::bf16};
  const Dispatch d = resolve_dispatch(dispatch_table(), 90, k48.shape, admission_of(k48));
  EXPECT_EQ(d.chosen, "cuda-dequant-cublas");
  ASSERT_EQ(d.refused.size(), 2u);
  EXPECT_EQ(d.refused[0].backend, "cuda-wgmma");
  EXPECT_EQ(d.refused[1].backend, "cuda-decode");
}

// The same K at decode sizes stays on cuda-decode, which takes any K of the format.
TEST(DispatchFallback, Nvfp4K48AtDecodeSizesStaysOnDecode) {
  const GemmProblem problem{{4, 768, 48}, Mode::w4a4, Fp4Format::nvfp4, ScaleLayout::swizzled, DType::f32};
  const Dispatch d = resolve_dispatch(dispatch_table(), 90, problem.shape, admission_of(problem));
  EXPECT_EQ(d.chosen, "cuda-decode");
  EXPECT_TRUE(d.refused.empty());
}

// A refused pick hands the problem to the other candidates in the fixed order decode ->
// dequant-cublas -> wgmma -> mma (those before the pick included).
TEST(DispatchFallback, AsksThePickThenTheOthersInTheFixedOrder) {
  std::vector<std::string> asked;
  const CandidateCheck refuse_all_but_mma = [&](std::string_view name) {
    asked.emplace_back(name);
    return name == "cuda-mma" ? Verdict::yes() : Verdict::no(fmt::format("{} says no", name));
  };
  const Dispatch d = resolve_dispatch(dispatch_table(), 90, {1, 64, 64}, refuse_all_but_mma);
  EXPECT_EQ(asked, (std::vector<std::string>{"cuda-decode", "cuda-dequant-cublas", "cuda-wgmma", "cuda-mma"}));
  EXPECT_EQ(d.chosen, "cuda-mma");
  EXPECT_EQ(d.describe_refusals(), "cuda-decode: cuda-decode says no; cuda-dequant-cublas: cuda-dequant-cublas "
                                   "says no; cuda-wgmma: cuda-wgmma says no");

  asked.clear();
  resolve_dispatch(dispatch_table(), 90, {4096, 64, 64}, refuse_all_but_mma);
  EXPECT_EQ(asked, (std::vector<std::string>{"cuda-dequant-cublas", "cuda-decode", "cuda-wgmma", "cuda-mma"}));

  asked.clear();
  resolve_dispatch(dispatch_table(), 90, {200, 64, 64}, refuse_all_but_mma);
  EXPECT_EQ(asked, (std::vector<std::string>{"cuda-wgmma", "cuda-decode", "cuda-dequant-cublas", "cuda-mma"}));
  EXPECT_EQ(dispatch_candidates("cuda-wgmma"),
            (std::vector<std::string_view>{"cuda-wgmma", "cuda-decode", "cuda-dequant-cublas", "cuda-mma"}));
}

TEST(DispatchFallback, EveryCandidateRefusingLeavesNoChoiceAndEveryReason) {
  const CandidateCheck refuse = [](std::string_view name) { return Verdict::no(std::string(name) + " is busy"); };
  const Dispatch d = resolve_dispatch(dispatch_table(), 80, {1, 64, 64}, refuse);
  EXPECT_EQ(d.chosen, "");
  ASSERT_EQ(d.refused.size(), 4u);
  EXPECT_EQ(d.refused[3].reason, "cuda-mma is busy");
}

// Rows keyed on N and K: the first row that takes the shape wins, the catch-all takes the rest.
TEST(DispatchTableLookup, RowsKeyedOnNAndK) {
  constexpr DispatchRow table[] = {
      {.sm = 90, .m_max = 64, .n_max = 1024, .backend = "cuda-decode", .basis = "small N"},
      {.sm = 90, .m_max = 64, .k_max = 512, .backend = "cuda-wgmma", .basis = "short K"},
      {.sm = 90, .backend = "cuda-mma", .basis = "the rest"},
      {.sm = kOtherSm, .backend = "cuda-mma", .basis = "elsewhere"},
  };
  static_assert(table_fault(table).empty());
  EXPECT_EQ(dispatch_row(table, 90, {64, 1024, 4096}), 0u);
  EXPECT_EQ(dispatch_row(table, 90, {64, 1025, 512}), 1u);
  EXPECT_EQ(dispatch_row(table, 90, {64, 1025, 513}), 2u);
  EXPECT_EQ(dispatch_row(table, 90, {65, 8, 8}), 2u);
  EXPECT_EQ(dispatch_row(table, 80, {1, 8, 8}), 3u);
  EXPECT_THAT(describe_row(table, 0, 90), HasSubstr("sm_90, M 1..64, N <= 1024: cuda-decode (small N)"));
  EXPECT_THAT(describe_row(table, 1, 90), HasSubstr("sm_90, M 1..64, K <= 512: cuda-wgmma"));
  EXPECT_THAT(describe_row(table, 3, 75), HasSubstr("sm_75 (default rows), any M: cuda-mma"));
}

TEST(DispatchTableLookup, MalformedTablesAreRejected) {
  constexpr DispatchRow no_catch_all[] = {{.sm = 90, .m_max = 32, .backend = "cuda-decode", .basis = "test"},
                                          {.sm = kOtherSm, .backend = "cuda-mma", .basis = "test"}};
  constexpr DispatchRow unreachable[] = {{.sm = kOtherSm, .backend = "cuda-mma", .basis = "test"},
                                         {.sm = kOtherSm, .m_max = 8, .backend = "cuda-decode", .basis = "test"}};
  constexpr DispatchRow split_group[] = {{.sm = 90, .backend = "cuda-mma", .basis = "test"},
                                         {.sm = kOtherSm, .backend = "cuda-mma", .basis = "test"},
                                         {.sm = 90, .backend = "cuda-mma", .basis = "test"}};
  constexpr DispatchRow unknown[] = {{.sm = kOtherSm, .backend = "cublas-bf16", .basis = "test"}};
  constexpr DispatchRow no_default[] = {{.sm = 90, .backend = "cuda-mma", .basis = "test"}};
  EXPECT_THAT(std::string(table_fault(no_catch_all)), HasSubstr("takes every shape"));
  EXPECT_THAT(std::string(table_fault(unreachable)), HasSubstr("takes every shape"));
  EXPECT_THAT(std::string(table_fault(split_group)), HasSubstr("not contiguous"));
  EXPECT_THAT(std::string(table_fault(unknown)), HasSubstr("kFallbackOrder"));
  EXPECT_THAT(std::string(table_fault(no_default)), HasSubstr("other architectures"));
  try {
    dispatch_row(no_catch_all, 90, {64, 8, 8});
    ADD_FAILURE() << "a malformed table was used";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("dispatch table: "));
  }
}

// check derives auto's tolerance from auto's accuracy(): each candidate must declare the same.
TEST(AutoBackend, CandidatesDeclareAutosAccuracy) {
  const Accuracy a = find_backend("auto").accuracy();
  for (std::string_view name : kFallbackOrder) {
    const Accuracy c = find_backend(name).accuracy();
    EXPECT_EQ(c.exact, a.exact) << name;
    EXPECT_EQ(c.input_relative_error, a.input_relative_error) << name;
    EXPECT_EQ(c.accumulation_unit, a.accumulation_unit) << name;
  }
  EXPECT_EQ(find_backend("auto").device(), DeviceKind::cuda);
}

}  // namespace
}  // namespace fp4gemm::cuda
