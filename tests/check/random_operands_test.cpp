// random_operands: the same seed gives the same operands, another seed others; the activations are
// normal (sigma 1, one value in 256 times 16), and the independently seeded chunks the values are
// drawn in (in parallel) are not copies of one another; normal_matrix gives the same values on 1, 3
// and all hardware threads, a last partial chunk included.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "check/normal_matrix.hpp"
#include "cpu/parallel_for.hpp"
#include "fp4gemm/gemm.hpp"

namespace fp4gemm {
namespace {

// 64 x 4096 activations: 262,144 values, four chunks of 65,536.
const GemmProblem kProblem{{64, 96, 4096}, Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::linear, DType::f32};
constexpr std::size_t kChunk = std::size_t(kNormalChunk);
static_assert(kChunk == 65536, "kProblem's activations are four chunks");

TEST(RandomOperands, TheSameSeedGivesTheSameOperandsAndAnotherSeedOthers) {
  const GemmOperands a = random_operands(kProblem, 7), again = random_operands(kProblem, 7);
  const GemmOperands other = random_operands(kProblem, 8);
  EXPECT_EQ(a.a_bf16.half, again.a_bf16.half);
  EXPECT_EQ(a.b.data, again.b.data);
  EXPECT_EQ(a.b.scales, again.b.scales);
  EXPECT_NE(a.a_bf16.half, other.a_bf16.half);
  EXPECT_NE(a.b.data, other.b.data);
}

TEST(RandomOperands, ActivationsAreNormalWithOutliersAndTheChunksDiffer) {
  const std::vector<float> x = random_operands(kProblem, 11).a_bf16.to_f32();
  ASSERT_EQ(x.size(), 4 * kChunk);
  double sum = 0, squares = 0;
  for (float v : x) sum += v, squares += double(v) * v;
  const double n = double(x.size()), mean = sum / n;
  // Variance (255/256) * 1 + (1/256) * 16^2 = 1.996: sigma 1.413. Standard errors over 262,144
  // values: the mean's 0.003, the sigma's ~0.02 (the outliers' fourth moment): bounds of 16 and 5.
  EXPECT_LT(std::abs(mean), 0.05);
  EXPECT_NEAR(std::sqrt(squares / n - mean * mean), 1.413, 0.1);
  for (std::size_t c = 1; c < 4; ++c) {
    int same = 0;
    for (std::size_t i = 0; i < 1000; ++i) same += x[i] == x[c * kChunk + i];
    EXPECT_LT(same, 100) << "chunk " << c << " repeats chunk 0";
  }
}

TEST(RandomOperands, NormalMatrixIsTheSameOnAnyThreadCountAndFillsTheLastChunk) {
  // 3 chunks and 12,345 values: the thread counts split the 4 chunks differently.
  const std::int64_t rows = 5, cols = (3 * kNormalChunk + 12345) / 5;
  ASSERT_NE(rows * cols % kNormalChunk, 0);
  std::vector<float> values[3];
  const unsigned threads[3] = {1, 3, cpu::hardware_threads()};
  for (int i = 0; i < 3; ++i) {
    NormalSource source(42);
    values[i] = normal_matrix(source, rows, cols, 1.0f, threads[i]).to_f32();
  }
  ASSERT_EQ(values[0].size(), std::size_t(rows * cols));
  for (int i = 1; i < 3; ++i) EXPECT_EQ(values[0], values[i]) << threads[i] << " threads against 1";
  // Every value drawn (the buffer starts as zeros; a normal draw is never exactly zero), the
  // last partial chunk's too.
  EXPECT_EQ(std::count(values[0].begin(), values[0].end(), 0.0f), 0);
  EXPECT_NE(values[0].back(), values[0][values[0].size() - 2]);
}

}  // namespace
}  // namespace fp4gemm
