// cuda-wgmma against the CPU reference: every mode x format x scale layout x output dtype, on
// awkward shapes (M = 1, 2, 3, 17, 129, 300; N = 1, 3, 8, 127, 129, 300, 768, not multiples of
// the 128-row tile; K = 32 up to 6144, not multiples of the 64-wide K-tile) with fresh random
// operands (the seed is in every failure); tolerance from Backend::accuracy() through
// verify_output (poisoned output must be overwritten, NaN and all-zero output fail); bit-exact
// on exactly representable operands; runs repeat bit for bit; a large 1024 x 4096 x 4096 problem
// (64 K-tiles per unit), one whose plan takes 256-token tiles, and problems whose persistent CTAs
// take several units each (both tile configs, split-K, K-tiles half full); the 32- and 64-token
// tiles, which run only where FP4GEMM_WGMMA_BM forces them, on every combo with token tails,
// split-K and several units per CTA. Without a GPU (or on one that is not sm_90) these skip; the
// admission rules, the plan and the TMA tensor-map parameters are checked everywhere.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "cuda/kernel_checks.hpp"
#include "cuda/tensor_map.hpp"
#include "cuda/wgmma_gemm.hpp"
#include "expect_error.hpp"
#include "scoped_env.hpp"
#include "fp4gemm/backend.hpp"
#include "fp4gemm/device.hpp"
#include "fp4gemm/gemm.hpp"

namespace fp4gemm {
namespace {

using test::check_random;
using test::Combo;
using test::problem_of;

const Backend& wgmma() { return find_backend("cuda-wgmma"); }

// Skips without a CUDA device or on a GPU other than sm_90 (the reason is printed).
void skip_unless_hopper() {
  if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  const Verdict available = wgmma().availability();
  if (!available) GTEST_SKIP() << available.reason;
}

class WgmmaGemm : public testing::TestWithParam<Combo> {
 protected:
  void SetUp() override { skip_unless_hopper(); }
};

// K = 32 is one MXFP4 block and two NVFP4 blocks; 96 and 160 end inside a K-tile; 1056 is 16.5
// K-tiles; M and N cross the 128 tile edges (129, 300) or stay far below them.
TEST_P(WgmmaGemm, RandomOperandsWithinTheAccumulationBound) {
  const Combo c = GetParam();
  const struct { std::int64_t m, n, k; } shapes[] = {
      {1, 768, 1056}, {1, 1, 32},       {2, 3, 96},      {3, 127, 160},  {17, 8, 1056},
      {17, 3, 32},    {129, 127, 1056}, {129, 300, 96},  {300, 129, 160}, {2, 129, 6144},
      {256, 256, 128},
  };
  for (const auto& s : shapes) check_random(wgmma(), problem_of(c, s.m, s.n, s.k), 1.0f);
  check_random(wgmma(), problem_of(c, 5, 33, 224), -0.375f);  // a user alpha on top of the tensor scales
}

// Representable operands (kernel_checks.hpp) on shapes with M, N and K tails.
TEST_P(WgmmaGemm, BitExactOnRepresentableOperands) {
  const Combo c = GetParam();
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(fmt::format("seed {}", seed));
  std::mt19937_64 rng(seed);
  const struct { std::int64_t m, n, k; } shapes[] = {
      {1, 768, 1024}, {3, 127, 96}, {129, 8, 1024}, {300, 257, 160}, {17, 1, 32}};
  for (const auto& s : shapes) test::check_bit_exact(wgmma(), problem_of(c, s.m, s.n, s.k), rng);
}

INSTANTIATE_TEST_SUITE_P(AllCombos, WgmmaGemm, testing::ValuesIn(test::all_combos()), test::combo_name);

class WgmmaGemmLarge : public testing::Test {
 protected:
  void SetUp() override { skip_unless_hopper(); }
};

// 4 x 32 = 128 tiles of 256 tokens (on 132 SMs one per CTA), 64 K-tiles each: the ring wraps
// many times within a unit.
TEST_F(WgmmaGemmLarge, M1024N4096K4096) {
  check_random(wgmma(),
               {{1024, 4096, 4096}, Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::swizzled, DType::bf16},
               1.0f);
}

// 144 tiles of 128 tokens take two waves of 132 SMs, so the plan takes BM = 256 (notes: on a GPU
// with more SMs it may not): token, row and K tails (1000 = 3 x 256 + 232, 2200 = 17 x 128 + 24,
// 1056 = 16.5 K-tiles) in the 256-token config, within the bound and bit-exact.
TEST_F(WgmmaGemmLarge, WideTokenTilesWithTails) {
  const GemmProblem random{{1000, 2200, 1056}, Mode::w4a16, Fp4Format::mxfp4, ScaleLayout::linear,
                           DType::f16};
  check_random(wgmma(), random, 1.0f);
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(fmt::format("seed {}", seed));
  std::mt19937_64 rng(seed);
  test::check_bit_exact(wgmma(),
                        {{1000, 2200, 1056}, Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::swizzled,
                         DType::f32},
                        rng);
}

// w4a4 (the dequantization kernel first) over several tiles per CTA, linear MXFP4 scales.
TEST_F(WgmmaGemmLarge, W4a4M600N2000K2048) {
  check_random(wgmma(),
               {{600, 2000, 2048}, Mode::w4a4, Fp4Format::mxfp4, ScaleLayout::linear, DType::f32},
               1.0f);
}

// Persistent CTAs that take several units, so the ring, the barrier phases, the fragment set (odd
// unit lengths) and the next unit's first K-tile converted before the epilogue run on across
// units (on 132 SMs; WgmmaGemmRules.SeveralUnitsPerCtaPlans checks these plans): the 256-token
// config (199 tiles), the 128-token config without split-K (133 tiles), and split-K with 3 splits
// (forced: the model keeps these 67 tiles unsplit) of 11 K-tiles (201 units) whose last K-tile is
// half full; NVFP4 and MXFP4.
TEST_F(WgmmaGemmLarge, SeveralUnitsPerCta) {
  check_random(wgmma(),
               {{150, 25469, 160}, Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::swizzled, DType::bf16},
               1.0f);
  check_random(wgmma(),
               {{100, 17021, 160}, Mode::w4a16, Fp4Format::mxfp4, ScaleLayout::linear, DType::f32},
               1.0f);
  const test::ScopedEnv splits("FP4GEMM_WGMMA_SPLITS", "3");
  check_random(wgmma(),
               {{1, 8571, 2080}, Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::linear, DType::f32},
               1.0f);
}

// The 32- and 64-token tiles (forced through the switch, as `bench` users force them): every combo
// on shapes with token tails in each tile (M = 33 and 65 take two token tiles of 32 / 64, M = 1
// pads 31 / 63 zero rows), N and K tails, split-K by the model (2 x 3000 x 6144: 24 tiles in 4
// splits), and
// bit-exact on representable operands.
class WgmmaGemmSmallTiles : public testing::TestWithParam<std::tuple<Combo, int>> {
 protected:
  void SetUp() override { skip_unless_hopper(); }
};

// The plan prepare() makes under the switches as they are now set (wgmma_backend.cu reads them
// there): the GPU tests of a forced tile check that the tile they name is the one that runs.
cuda::WgmmaPlan plan_from_environment(const GemmProblem& p) {
  return cuda::wgmma_plan_for(p, 132, cuda::wgmma_choices_from_environment());
}

TEST_P(WgmmaGemmSmallTiles, RandomAndBitExact) {
  const auto [c, block_m] = GetParam();
  const std::string bm = std::to_string(block_m);
  const test::ScopedEnv forced("FP4GEMM_WGMMA_BM", bm.c_str());
  const test::ScopedEnv model_splits("FP4GEMM_WGMMA_SPLITS", nullptr);
  const struct { std::int64_t m, n, k; } shapes[] = {
      {1, 768, 1056}, {2, 3, 96}, {3, 127, 160}, {17, 8, 1056}, {32, 129, 32},
      {33, 300, 160}, {65, 129, 1056}, {2, 3000, 6144},
  };
  for (const auto& s : shapes) {
    ASSERT_EQ(plan_from_environment(problem_of(c, s.m, s.n, s.k)).block_m, block_m);
    check_random(wgmma(), problem_of(c, s.m, s.n, s.k), 1.0f);
  }
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(fmt::format("seed {}", seed));
  std::mt19937_64 rng(seed);
  for (const auto& s : {shapes[0], shapes[2], shapes[5], shapes[6]})
    test::check_bit_exact(wgmma(), problem_of(c, s.m, s.n, s.k), rng);
}

INSTANTIATE_TEST_SUITE_P(
    AllCombos, WgmmaGemmSmallTiles, testing::Combine(testing::ValuesIn(test::all_combos()), testing::Values(32, 64)),
    [](const testing::TestParamInfo<std::tuple<Combo, int>>& info) {
      return test::combo_name({std::get<0>(info.param), info.index}) + "_bm" + std::to_string(std::get<1>(info.param));
    });

// Forced split counts with the small tiles: 3 splits of 11 K-tiles (the last half full), so the
// reduction runs; 20 x 8571 is one token tile x 67 N-tiles (201 units), 70 x 4000 two or three
// token tiles x 32 N-tiles (192 / 288 units): CTAs take several units each, the ring runs on
// across them, and the partial tiles of token tiles past the first are summed; within the bound
// and bit-exact.
TEST_F(WgmmaGemmLarge, SmallTilesSplitKSeveralUnitsPerCta) {
  const test::ScopedEnv splits("FP4GEMM_WGMMA_SPLITS", "3");
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(fmt::format("seed {}", seed));
  std::mt19937_64 rng(seed);
  for (const int block_m : {32, 64}) {
    const std::string bm = std::to_string(block_m);
    const test::ScopedEnv forced("FP4GEMM_WGMMA_BM", bm.c_str());
    const GemmProblem one_token_tile{{20, 8571, 2080}, Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::swizzled,
                                     DType::bf16};
    const GemmProblem several{{70, 4000, 2080}, Mode::w4a4, Fp4Format::mxfp4, ScaleLayout::linear, DType::f32};
    for (const GemmProblem& p : {one_token_tile, several}) {
      const cuda::WgmmaPlan plan = plan_from_environment(p);
      ASSERT_EQ(plan.block_m, block_m);
      ASSERT_EQ(plan.splits, 3);
      ASSERT_GT(plan.units, 132);
      check_random(wgmma(), p, 1.0f);
    }
    test::check_bit_exact(wgmma(),
                          {{70, 4000, 2080}, Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::linear, DType::f32}, rng);
  }
}

// ------------------------------------------------------------------ host rules (no GPU needed)
GemmProblem w4a16(std::int64_t m, std::int64_t n, std::int64_t k, Fp4Format f) {
  return {{m, n, k}, Mode::w4a16, f, ScaleLayout::linear, DType::f32};
}

TEST(WgmmaGemmRules, CanImplementRefusesTheFormatsRulesAndUnalignedRows) {
  const Verdict mx24 = wgmma().can_implement(w4a16(4, 4, 24, Fp4Format::mxfp4));
  EXPECT_FALSE(mx24);
  EXPECT_NE(mx24.reason.find("K = 24 is not a multiple of 32"), std::string::npos) << mx24.reason;
  for (std::int64_t k : {16, 48, 1040}) {
    const Verdict v = wgmma().can_implement(w4a16(4, 4, k, Fp4Format::nvfp4));
    EXPECT_FALSE(v) << "K = " << k;
    EXPECT_NE(v.reason.find(fmt::format("K = {}: rows of B (K/2 = {} bytes) must be 16-byte "
                                        "aligned for TMA", k, k / 2)),
              std::string::npos)
        << v.reason;
  }
  EXPECT_FALSE(wgmma().can_implement(w4a16(0, 4, 32, Fp4Format::nvfp4)));
  EXPECT_FALSE(wgmma().can_implement(w4a16(4, 0, 32, Fp4Format::nvfp4)));
  for (Fp4Format f : {Fp4Format::nvfp4, Fp4Format::mxfp4}) {
    EXPECT_TRUE(wgmma().can_implement(w4a16(1, 1, 32, f)));
    EXPECT_TRUE(wgmma().can_implement(w4a16(1000003, 77777, 32000, f)));
  }
  const Verdict huge = wgmma().can_implement(w4a16(std::int64_t(1) << 31, 4, 32, Fp4Format::mxfp4));
  EXPECT_FALSE(huge);
  EXPECT_NE(huge.reason.find("signed 32-bit"), std::string::npos) << huge.reason;
}

// The cost model's terms (wgmma_gemm.cu, us): a K-tile 0.637 (256 tokens) / 0.408 (128), a unit
// 6.11 / 3.42, the reduction 1.78 per split; each plan below is its cheapest.
TEST(WgmmaGemmRules, PlanTilesAPersistentGrid) {
  // 24 tiles of 128 tokens, 17 K-tiles, one wave: unsplit 3.42 + 17 x 0.408 = 10.4 beats 3 splits
  // (3.42 + 6 x 0.408 + 3 x 1.78 = 11.2); 256 tokens (12 tiles) 6.11 + 17 x 0.637 = 16.9.
  const cuda::WgmmaPlan big = cuda::wgmma_plan_for(w4a16(1000, 300, 1056, Fp4Format::nvfp4), 132);
  EXPECT_EQ(big.block_n, 128);
  EXPECT_EQ(big.block_m, 128);
  EXPECT_EQ(big.block_k, 64);
  EXPECT_EQ(big.tiles_n, 3);
  EXPECT_EQ(big.tiles_m, 8);
  EXPECT_EQ(big.tiles, 24);
  EXPECT_EQ(big.k_tiles, 17);
  EXPECT_EQ(big.splits, 1);
  EXPECT_EQ(big.k_tiles_per_split, 17);
  EXPECT_EQ(big.units, 24);
  EXPECT_EQ(big.grid, 24);
  EXPECT_EQ(big.workspace_floats, 0u);
  EXPECT_EQ(big.counters, 0u);
  EXPECT_LE(big.smem_bytes, 232448);
  EXPECT_EQ(big.threads, 384);
  // 768 tiles of 256 tokens: 6 waves x (6.11 + 96 x 0.637) = 403 against 1536 tiles of 128 in 12
  // waves x (3.42 + 96 x 0.408) = 511.
  const cuda::WgmmaPlan wide = cuda::wgmma_plan_for(w4a16(4096, 6144, 6144, Fp4Format::mxfp4), 132);
  EXPECT_EQ(wide.block_m, 256);
  EXPECT_EQ(wide.splits, 1);
  EXPECT_EQ(wide.tiles, 48 * 16);
  EXPECT_EQ(wide.grid, 132);
  EXPECT_EQ(wide.workspace_floats, 0u);
  EXPECT_LE(wide.smem_bytes, 232448);
  // 384 tiles of 128 take 3 waves (3 x 42.6 = 128), 192 of 256 take 2 (2 x 67.3 = 135).
  const cuda::WgmmaPlan mid = cuda::wgmma_plan_for(w4a16(1024, 6144, 6144, Fp4Format::nvfp4), 132);
  EXPECT_EQ(mid.block_m, 128);
  EXPECT_EQ(mid.splits, 1);
  EXPECT_EQ(mid.tiles, 48 * 8);
  // M = 128: 48 tiles; 2 splits give 96 units in one wave (3.42 + 48 x 0.408 + 2 x 1.78 = 26.6
  // against 42.6 unsplit), with a workspace partial tile per unit and a counter per tile.
  const cuda::WgmmaPlan small = cuda::wgmma_plan_for(w4a16(128, 6144, 6144, Fp4Format::nvfp4), 132);
  EXPECT_EQ(small.block_m, 128);
  EXPECT_EQ(small.splits, 2);
  EXPECT_EQ(small.k_tiles_per_split, 48);
  EXPECT_EQ(small.units, 96);
  EXPECT_EQ(small.grid, 96);
  EXPECT_EQ(small.workspace_floats, 96u * 128 * 128);
  EXPECT_EQ(small.counters, 48u);
  EXPECT_THROW(cuda::wgmma_plan_for(w4a16(4, 4, 48, Fp4Format::nvfp4), 132), InvalidArgument);
}

TEST(WgmmaGemmRules, SeveralUnitsPerCtaPlans) {
  // WgmmaGemmLarge.SeveralUnitsPerCta's problems on 132 SMs: more units than CTAs in each.
  const cuda::WgmmaPlan wide = cuda::wgmma_plan_for(w4a16(150, 25469, 160, Fp4Format::nvfp4), 132);
  EXPECT_EQ(wide.block_m, 256);  // 199 tiles: 2 waves x 8.0 against 398 tiles of 128 in 4 x 4.6
  EXPECT_EQ(wide.units, 199);
  EXPECT_EQ(wide.grid, 132);
  const cuda::WgmmaPlan narrow = cuda::wgmma_plan_for(w4a16(100, 17021, 160, Fp4Format::mxfp4), 132);
  EXPECT_EQ(narrow.block_m, 128);
  EXPECT_EQ(narrow.splits, 1);
  EXPECT_EQ(narrow.units, 133);
  EXPECT_EQ(narrow.grid, 132);
  // The model takes 67 unsplit units here (one wave); the GPU test forces 3 splits.
  EXPECT_EQ(cuda::wgmma_plan_for(w4a16(1, 8571, 2080, Fp4Format::nvfp4), 132).splits, 1);
  const cuda::WgmmaPlan split = cuda::wgmma_plan_for(w4a16(1, 8571, 2080, Fp4Format::nvfp4), 132, {.splits = 3});
  EXPECT_EQ(split.block_m, 128);
  EXPECT_EQ(split.k_tiles, 33);  // the last one half full (2080 = 32.5 x 64)
  EXPECT_EQ(split.splits, 3);
  EXPECT_EQ(split.k_tiles_per_split, 11);
  EXPECT_EQ(split.units, 201);
  EXPECT_EQ(split.grid, 132);
}

// The experiment switches leave only the forced token tile and split count to the cost model.
// 512 x 6144 x 6144 (96 K-tiles): the model takes 256 tokens unsplit (96 units, one wave: 67.3)
// over 128 x 2 splits (384 units, 3 waves x 26.6 = 79.7), the earlier model's choice, which stop
// 38 measured at 93.9 us.
TEST(WgmmaGemmRules, ForcedTileAndSplitsAreTheOnlyCandidates) {
  const GemmProblem p = w4a16(512, 6144, 6144, Fp4Format::nvfp4);
  const cuda::WgmmaPlan model = cuda::wgmma_plan_for(p, 132);
  EXPECT_EQ(model.block_m, 256);
  EXPECT_EQ(model.splits, 1);
  EXPECT_EQ(model.units, 96);
  EXPECT_EQ(model.grid, 96);
  EXPECT_EQ(model.workspace_floats, 0u);
  const cuda::WgmmaPlan narrow = cuda::wgmma_plan_for(p, 132, {.block_m = 128});
  EXPECT_EQ(narrow.block_m, 128);
  EXPECT_EQ(narrow.splits, 2);
  EXPECT_EQ(narrow.units, 384);
  const cuda::WgmmaPlan four = cuda::wgmma_plan_for(p, 132, {.block_m = 128, .splits = 4});
  EXPECT_EQ(four.block_m, 128);
  EXPECT_EQ(four.splits, 4);
  EXPECT_EQ(four.k_tiles_per_split, 24);
  EXPECT_EQ(four.units, 768);
  const cuda::WgmmaPlan one = cuda::wgmma_plan_for(p, 132, {.splits = 1});
  EXPECT_EQ(one.splits, 1);
  EXPECT_EQ(one.block_m, 256);  // 1 wave x 67.3 against 2 waves x 42.6
  // More splits than K-tiles: as many as there are (K = 64: one K-tile); a count that would leave
  // a split empty is evened (13 of 96 K-tiles: 8 per split, 12 splits).
  EXPECT_EQ(cuda::wgmma_plan_for(w4a16(64, 256, 64, Fp4Format::nvfp4), 132, {.splits = 8}).splits, 1);
  const cuda::WgmmaPlan evened = cuda::wgmma_plan_for(p, 132, {.block_m = 128, .splits = 13});
  EXPECT_EQ(evened.splits, 12);
  EXPECT_EQ(evened.k_tiles_per_split, 8);
  // Choices no config takes (only the parser's values reach the plan from the environment).
  for (const cuda::WgmmaChoices bad : {cuda::WgmmaChoices{.block_m = 256, .splits = 2}, cuda::WgmmaChoices{.block_m = 96}})
    test::expect_error<InvalidArgument>([&] { cuda::wgmma_plan_for(p, 132, bad); }, "cuda-wgmma: no tile config takes");
}

// The 32- and 64-token tiles run only where forced; then the model picks their split count with
// its terms extrapolated to them (a K-tile 0.236 / 0.293 us, a unit 1.40 / 2.07).
// 32 x 6144 x 6144 (48 tiles, 96 K-tiles): 2 splits are 96 units in one wave (1.40 + 48 x 0.236 +
// 2 x 1.78 = 16.3), against 24.1 unsplit and 2 waves x 14.2 for 4 splits (14.3 for 3).
TEST(WgmmaGemmRules, SmallTokenTilesOnlyWhereForced) {
  const GemmProblem p = w4a16(32, 6144, 6144, Fp4Format::nvfp4);
  EXPECT_EQ(cuda::wgmma_plan_for(p, 132).block_m, 128);
  EXPECT_EQ(cuda::wgmma_plan_for(w4a16(1, 6144, 6144, Fp4Format::mxfp4), 132).block_m, 128);
  const cuda::WgmmaPlan p32 = cuda::wgmma_plan_for(p, 132, {.block_m = 32});
  EXPECT_EQ(p32.block_m, 32);
  EXPECT_EQ(p32.stages, 16);
  EXPECT_EQ(p32.tiles, 48);
  EXPECT_EQ(p32.splits, 2);
  EXPECT_EQ(p32.k_tiles_per_split, 48);
  EXPECT_EQ(p32.units, 96);
  EXPECT_EQ(p32.grid, 96);
  EXPECT_EQ(p32.workspace_floats, 96u * 128 * 32);
  EXPECT_EQ(p32.counters, 48u);
  EXPECT_LE(p32.smem_bytes, 232448);
  // 64 tokens at M = 65: 2 token tiles x 48 = 96 units unsplit in one wave (2.07 + 96 x 0.293 =
  // 30.2) beat 2 splits (2 waves x 19.7); 4 when forced.
  const GemmProblem q = w4a16(65, 6144, 6144, Fp4Format::nvfp4);
  const cuda::WgmmaPlan p64 = cuda::wgmma_plan_for(q, 132, {.block_m = 64});
  EXPECT_EQ(p64.block_m, 64);
  EXPECT_EQ(p64.stages, 12);
  EXPECT_EQ(p64.tiles_m, 2);
  EXPECT_EQ(p64.splits, 1);
  EXPECT_EQ(p64.units, 96);
  EXPECT_EQ(p64.workspace_floats, 0u);
  EXPECT_LE(p64.smem_bytes, 232448);
  const cuda::WgmmaPlan four64 = cuda::wgmma_plan_for(q, 132, {.block_m = 64, .splits = 4});
  EXPECT_EQ(four64.splits, 4);
  EXPECT_EQ(four64.units, 384);
}

// The switches reach the plan through the environment (the GPU tests above rely on it).
TEST(WgmmaGemmRules, SwitchesReachThePlanThroughTheEnvironment) {
  const GemmProblem p = w4a16(32, 6144, 6144, Fp4Format::nvfp4);
  {
    const test::ScopedEnv bm("FP4GEMM_WGMMA_BM", "32"), splits("FP4GEMM_WGMMA_SPLITS", "3");
    const cuda::WgmmaPlan plan = plan_from_environment(p);
    EXPECT_EQ(plan.block_m, 32);
    EXPECT_EQ(plan.splits, 3);
  }
  const test::ScopedEnv bm("FP4GEMM_WGMMA_BM", nullptr), splits("FP4GEMM_WGMMA_SPLITS", nullptr);
  EXPECT_EQ(plan_from_environment(p).block_m, 128);
  EXPECT_EQ(plan_from_environment(p).splits, 2);
}

TEST(WgmmaGemmRules, SwitchValuesAreParsedOrNamedInTheError) {
  EXPECT_EQ(cuda::parse_wgmma_choices("", "").block_m, 0);
  EXPECT_EQ(cuda::parse_wgmma_choices("auto", "auto").splits, 0);
  EXPECT_EQ(cuda::parse_wgmma_choices("128", "16").block_m, 128);
  EXPECT_EQ(cuda::parse_wgmma_choices("128", "16").splits, 16);
  EXPECT_EQ(cuda::parse_wgmma_choices("256", "1").block_m, 256);
  EXPECT_EQ(cuda::parse_wgmma_choices("32", "").block_m, 32);
  EXPECT_EQ(cuda::parse_wgmma_choices("64", "4").block_m, 64);
  test::expect_error<InvalidArgument>([] { cuda::parse_wgmma_choices("96", ""); },
                                      "FP4GEMM_WGMMA_BM = '96' is not one of: auto, 32, 64, 128, 256");
  for (const char* bad : {"0", "17", "2x", "-1"})
    test::expect_error<InvalidArgument>(
        [&] { cuda::parse_wgmma_choices("", bad); },
        fmt::format("FP4GEMM_WGMMA_SPLITS = '{}' is not 'auto' or a count of K-splits 1..16", bad));
  test::expect_error<InvalidArgument>([] { cuda::parse_wgmma_choices("256", "2"); },
                                      "FP4GEMM_WGMMA_SPLITS = 2 needs FP4GEMM_WGMMA_BM = 32, 64, 128 or auto");
}

TEST(WgmmaGemmRules, TensorMapsMatchTheKernelsBoxes) {
  const GemmProblem p = w4a16(300, 129, 160, Fp4Format::nvfp4);
  const cuda::TensorMap2d act = cuda::wgmma_activation_map(p, 128);
  EXPECT_EQ(act.dtype, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
  EXPECT_EQ(act.cols, 160u);
  EXPECT_EQ(act.rows, 300u);
  EXPECT_EQ(act.row_stride_bytes, 320u);
  EXPECT_EQ(act.box_cols, 64u);   // 128 bytes: one swizzle span
  EXPECT_EQ(act.box_rows, 128u);
  EXPECT_EQ(act.swizzle, CU_TENSOR_MAP_SWIZZLE_128B);
  for (std::uint32_t bm : {32u, 64u, 256u}) EXPECT_EQ(cuda::wgmma_activation_map(p, int(bm)).box_rows, bm);
  const cuda::TensorMap2d w = cuda::wgmma_weight_map(p);
  EXPECT_EQ(w.dtype, CU_TENSOR_MAP_DATA_TYPE_UINT8);
  EXPECT_EQ(w.cols, 80u);
  EXPECT_EQ(w.rows, 129u);
  EXPECT_EQ(w.row_stride_bytes, 80u);
  EXPECT_EQ(w.box_cols, 32u);
  EXPECT_EQ(w.box_rows, 128u);
  EXPECT_EQ(w.swizzle, CU_TENSOR_MAP_SWIZZLE_NONE);

  // Scale tiles: ceil(129 / 128) = 2 N tiles x ceil(160 / 64) = 3 K-tiles of 4 rows of 128 bytes.
  const cuda::TensorMap2d sc = cuda::wgmma_scale_map(p);
  EXPECT_EQ(sc.dtype, CU_TENSOR_MAP_DATA_TYPE_UINT8);
  EXPECT_EQ(sc.cols, 128u);
  EXPECT_EQ(sc.rows, 24u);
  EXPECT_EQ(sc.row_stride_bytes, 128u);
  EXPECT_EQ(sc.box_cols * sc.box_rows, 512u);
  EXPECT_EQ(sc.box_rows, 4u);

  alignas(16) static const std::uint8_t base[16] = {};
  EXPECT_EQ(cuda::tensor_map_problem(sc, base), "");
  EXPECT_EQ(cuda::tensor_map_problem(act, base), "");
  EXPECT_EQ(cuda::tensor_map_problem(w, base), "");
  EXPECT_NE(cuda::tensor_map_problem(w, base + 8).find("16-byte aligned"), std::string::npos);
  // What can_implement keeps away: NVFP4 K = 48 gives 24-byte weight rows.
  const cuda::TensorMap2d w48 = cuda::wgmma_weight_map(w4a16(4, 4, 48, Fp4Format::nvfp4));
  EXPECT_EQ(cuda::tensor_map_problem(w48, base), "rows of 24 bytes must be 16-byte aligned");
  cuda::TensorMap2d wide_box = act;
  wide_box.box_cols = 128;  // 256 bytes under the 128-byte swizzle
  EXPECT_NE(cuda::tensor_map_problem(wide_box, base).find("swizzle span"), std::string::npos);
}

TEST(WgmmaGemmRules, AvailabilitySaysWhy) {
  test::check_availability(
      wgmma(), [](const GpuInfo& gpu) { return gpu.sm_major == 9 && gpu.sm_minor == 0; },
      "needs sm_90a");
}

TEST(WgmmaGemmRules, AccuracyIsExactWithFp32Accumulation) { test::check_bf16_mma_accuracy(wgmma()); }

}  // namespace
}  // namespace fp4gemm
