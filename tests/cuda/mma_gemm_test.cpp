// cuda-mma against the CPU reference: every mode x format x scale layout x output dtype, on
// awkward shapes (M = 1, 2, 3, 17, 64, 129, 4096; N = 1, 3, 8, 127, 768; K down to one block and
// not a multiple of the K-tile) with fresh random operands (the seed is in every failure);
// tolerance from Backend::accuracy() through verify_output (poisoned output must be overwritten,
// NaN and all-zero output fail); bit-exact on exactly representable operands; runs repeat bit
// for bit (split-K sums its partials in a fixed order); and the admission rules.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "check/verify.hpp"
#include "fp4gemm/backend.hpp"
#include "fp4gemm/codecs.hpp"
#include "fp4gemm/device.hpp"
#include "fp4gemm/gemm.hpp"
#include "fp4gemm/layout.hpp"
#include "format/fp4_tensor_builder.hpp"

namespace fp4gemm {
namespace {

const Backend& mma() { return find_backend("cuda-mma"); }

std::uint64_t fresh_seed() { return std::random_device{}() * 0x100000001ull + std::random_device{}(); }

struct Combo {
  Mode mode;
  Fp4Format format;
  ScaleLayout layout;
  DType out;
};

std::vector<Combo> all_combos() {
  std::vector<Combo> combos;
  for (Mode mode : {Mode::w4a4, Mode::w4a16})
    for (Fp4Format format : {Fp4Format::nvfp4, Fp4Format::mxfp4})
      for (ScaleLayout layout : {ScaleLayout::linear, ScaleLayout::swizzled})
        for (DType out : {DType::f32, DType::bf16, DType::f16}) combos.push_back({mode, format, layout, out});
  return combos;
}

std::string combo_name(const testing::TestParamInfo<Combo>& info) {
  const Combo& c = info.param;
  return fmt::format("{}_{}_{}_{}", to_string(c.mode), to_string(c.format), to_string(c.layout),
                     to_string(c.out));
}

GemmProblem problem_of(const Combo& c, std::int64_t m, std::int64_t n, std::int64_t k) {
  return {{m, n, k}, c.mode, c.format, c.layout, c.out};
}

std::vector<std::uint32_t> bits_of(const std::vector<float>& v) {
  std::vector<std::uint32_t> bits(v.size());
  std::memcpy(bits.data(), v.data(), v.size() * sizeof(float));
  return bits;
}

// Poison, run, read back; then again, which must give the same bits.
std::vector<float> run_twice(const GemmOperands& ops) {
  const std::unique_ptr<GemmRun> run = mma().prepare(ops);
  run->poison_output();
  run->run();
  run->synchronize();
  const std::vector<float> d = run->output();
  run->poison_output();
  run->run();
  run->synchronize();
  EXPECT_EQ(bits_of(d), bits_of(run->output())) << "a second run gave other bits";
  return d;
}

void check_random(const GemmProblem& problem, float alpha) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(fmt::format("{} alpha {} seed {}", problem.describe(), alpha, seed));
  ASSERT_TRUE(mma().can_implement(problem)) << mma().can_implement(problem).reason;
  GemmOperands ops = random_operands(problem, seed);
  ops.alpha = alpha;
  const ReferenceResult reference = reference_gemm(ops);
  const std::vector<float> d = run_twice(ops);
  const VerifyResult v = verify_output(d, reference, problem, mma().accuracy());
  EXPECT_TRUE(v.passed) << v.failure << " (" << v.violations << " over the bound, " << v.unwritten
                        << " unwritten, " << v.non_finite << " non-finite, worst ratio "
                        << v.worst_ratio << ")";
  bool any_nonzero = false;
  for (float x : d) any_nonzero |= x != 0.0f;
  EXPECT_TRUE(any_nonzero) << "output is all zeros";
}

class MmaGemm : public testing::TestWithParam<Combo> {
 protected:
  void SetUp() override {
    if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
    const Verdict available = mma().availability();
    ASSERT_TRUE(available) << available.reason;
  }
};

// Each M, N and K of the sweep at least once; K values are 1, 3, 5 and 384 blocks (K-tiles are
// 64 or 128, so only the last is whole); M <= 16 with large K exercises split-K.
TEST_P(MmaGemm, RandomOperandsWithinTheAccumulationBound) {
  const Combo c = GetParam();
  const std::int64_t b = block_size(c.format);
  const struct { std::int64_t m, n, k; } shapes[] = {
      {1, 768, 384 * b}, {1, 1, b},       {2, 3, 3 * b},     {3, 127, 5 * b},
      {3, 768, 384 * b}, {17, 8, 384 * b}, {64, 768, 5 * b},  {64, 1, b},
      {129, 127, 384 * b}, {129, 768, 3 * b}, {17, 3, 3 * b},  {2, 127, 384 * b},
  };
  for (const auto& s : shapes) check_random(problem_of(c, s.m, s.n, s.k), 1.0f);
  check_random(problem_of(c, 5, 33, 7 * b), -0.375f);  // a user alpha on top of the tensor scales
}

// Operands whose every partial sum is an fp32 integer multiple of 1/4 below 2^18: any summation
// order gives the exact sum, so D must equal the reference bit for bit (after the one rounding
// to the output dtype, done the same way on both sides).
GemmOperands representable_operands(const GemmProblem& problem, std::mt19937_64& rng) {
  const GemmShape& s = problem.shape;
  const int block = block_size(problem.format);
  // Scale codes of 1 and 2: E4M3 0x38 / 0x40, UE8M0 127 / 128.
  const std::uint8_t one = problem.format == Fp4Format::nvfp4 ? 0x38 : 127;
  const std::uint8_t two = problem.format == Fp4Format::nvfp4 ? 0x40 : 128;
  auto tensor = [&](std::int64_t rows) {
    std::vector<std::uint8_t> codes(std::size_t(rows * s.k)), scales(std::size_t(rows * s.k / block));
    for (auto& code : codes) code = std::uint8_t(rng() & 15);
    for (auto& scale : scales) scale = (rng() & 1) ? two : one;
    return with_scale_layout(test::make_fp4_tensor(problem.format, rows, s.k, codes, scales, 1.0f),
                             problem.scale_layout);
  };
  GemmOperands ops;
  ops.problem = problem;
  ops.b = tensor(s.n);
  if (problem.mode == Mode::w4a4) {
    ops.a_fp4 = tensor(s.m);
  } else {
    std::vector<std::uint16_t> a(std::size_t(s.m * s.k));
    for (auto& x : a) x = bf16_from_float(float(int(rng() % 17) - 8));
    ops.a_bf16 = HostMatrix::from_half(DType::bf16, s.m, s.k, std::move(a));
  }
  return ops;
}

TEST_P(MmaGemm, BitExactOnRepresentableOperands) {
  const Combo c = GetParam();
  const std::int64_t b = block_size(c.format);
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  // |products| <= 12 * 12, K <= 1024: partial sums stay below 2^18 in steps of 1/4.
  const struct { std::int64_t m, n, k; } shapes[] = {
      {1, 768, 1024}, {3, 127, 5 * b}, {129, 8, 1024}, {64, 768, 3 * b}, {17, 1, b}};
  for (const auto& s : shapes) {
    const GemmProblem problem = problem_of(c, s.m, s.n, s.k);
    SCOPED_TRACE(fmt::format("{} seed {}", problem.describe(), seed));
    const GemmOperands ops = representable_operands(problem, rng);
    const ReferenceResult reference = reference_gemm(ops);
    const std::vector<float> d = run_twice(ops);
    std::int64_t mismatches = 0;
    std::string first;
    for (std::size_t i = 0; i < d.size(); ++i) {
      if (d[i] == reference.rounded[i]) continue;
      if (mismatches++ == 0)
        first = fmt::format("D[{}][{}] = {} but R = {}", std::int64_t(i) / s.n, std::int64_t(i) % s.n,
                            d[i], reference.rounded[i]);
    }
    EXPECT_EQ(mismatches, 0) << first;
  }
}

INSTANTIATE_TEST_SUITE_P(AllCombos, MmaGemm, testing::ValuesIn(all_combos()), combo_name);

class MmaGemmLarge : public testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  }
};

// The 128-row config over many tiles (one mode: the CPU reference is slow at this size).
TEST_F(MmaGemmLarge, M4096) {
  check_random({{4096, 768, 1024}, Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::swizzled, DType::bf16},
               1.0f);
}

// The 128-row config with split-K (12 output tiles, 96 K-tiles).
TEST_F(MmaGemmLarge, M256SplitK) {
  check_random({{256, 768, 6144}, Mode::w4a4, Fp4Format::mxfp4, ScaleLayout::linear, DType::f32}, 1.0f);
}

// ------------------------------------------------------------------ admission (no GPU needed)
TEST(MmaGemmRules, CanImplementRefusesOnlyWhatTheFormatForbids) {
  auto problem = [](std::int64_t m, std::int64_t n, std::int64_t k, Fp4Format f) {
    return GemmProblem{{m, n, k}, Mode::w4a16, f, ScaleLayout::linear, DType::f32};
  };
  const Verdict mx24 = mma().can_implement(problem(4, 4, 24, Fp4Format::mxfp4));
  EXPECT_FALSE(mx24);
  EXPECT_NE(mx24.reason.find("K = 24 is not a multiple of 32"), std::string::npos) << mx24.reason;
  const Verdict nv24 = mma().can_implement(problem(4, 4, 24, Fp4Format::nvfp4));
  EXPECT_FALSE(nv24);
  EXPECT_NE(nv24.reason.find("K = 24 is not a multiple of 16"), std::string::npos) << nv24.reason;
  EXPECT_FALSE(mma().can_implement(problem(4, 4, 16, Fp4Format::mxfp4)));
  EXPECT_FALSE(mma().can_implement(problem(0, 4, 16, Fp4Format::nvfp4)));
  EXPECT_FALSE(mma().can_implement(problem(4, 0, 16, Fp4Format::nvfp4)));
  for (Fp4Format f : {Fp4Format::nvfp4, Fp4Format::mxfp4}) {
    const std::int64_t b = block_size(f);
    EXPECT_TRUE(mma().can_implement(problem(1, 1, b, f)));
    EXPECT_TRUE(mma().can_implement(problem(1000003, 77777, 1000 * b, f)));
  }
}

TEST(MmaGemmRules, AvailabilitySaysWhy) {
  const Verdict available = mma().availability();
  if (!cuda_device_present()) {
    EXPECT_FALSE(available);
    EXPECT_NE(available.reason.find("no CUDA device"), std::string::npos) << available.reason;
    return;
  }
  const std::vector<GpuInfo> gpus = query_gpus();
  ASSERT_FALSE(gpus.empty());
  if (gpus[0].sm_major < 8) {
    EXPECT_FALSE(available);
    EXPECT_NE(available.reason.find("needs sm_80+"), std::string::npos) << available.reason;
  } else {
    EXPECT_TRUE(available) << available.reason;
  }
}

TEST(MmaGemmRules, AccuracyIsExactWithFp32Accumulation) {
  const Accuracy a = mma().accuracy();
  EXPECT_TRUE(a.exact);
  EXPECT_EQ(a.input_relative_error, 0.0);
  EXPECT_EQ(a.accumulation_unit, 0x1p-23);
}

}  // namespace
}  // namespace fp4gemm
