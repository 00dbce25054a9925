// Seeded random operands for check, bench and the tests.
#include <cmath>
#include <random>

#include "fp4gemm/gemm.hpp"
#include "fp4gemm/quantize.hpp"

namespace fp4gemm {
namespace {

// Normal samples from a fixed generator and a fixed transform (Box-Muller), so that the same
// seed gives the same operands with every standard library.
class NormalSource {
 public:
  explicit NormalSource(std::uint64_t seed) : engine_(seed) {}
  float next() {
    constexpr double two_pi = 6.283185307179586;
    const double u1 = (double(engine_() >> 11) + 0.5) * 0x1p-53;  // (0, 1)
    const double u2 = double(engine_() >> 11) * 0x1p-53;          // [0, 1)
    return float(std::sqrt(-2.0 * std::log(u1)) * std::cos(two_pi * u2));
  }
  std::uint64_t bits() { return engine_(); }

 private:
  std::mt19937_64 engine_;
};

// rows x cols normal values of standard deviation `sigma`; one element in 256 is scaled by 16,
// like the outlier channels of LLM activations, so that block scales really differ.
HostMatrix normal_matrix(NormalSource& source, std::int64_t rows, std::int64_t cols, float sigma) {
  std::vector<float> values(std::size_t(rows * cols));
  for (float& v : values) {
    v = sigma * source.next();
    if ((source.bits() & 255) == 0) v *= 16.0f;
  }
  return HostMatrix::from_f32(rows, cols, std::move(values));
}

}  // namespace

GemmOperands random_operands(const GemmProblem& problem, std::uint64_t seed) {
  validate_shape(problem.shape, problem.format);
  NormalSource source(seed);
  const QuantizeOptions options{problem.format, problem.scale_layout, {}, {}};
  GemmOperands ops;
  ops.problem = problem;
  const HostMatrix activations = normal_matrix(source, problem.shape.m, problem.shape.k, 1.0f);
  ops.b = quantize(normal_matrix(source, problem.shape.n, problem.shape.k, 0.02f), options);
  ops.a_bf16 = activations.converted(DType::bf16);
  // w4a4: A is the quantization of the bf16 activations, which stay as its source (the GPU
  // backends requantize them in every call, as a serving engine would).
  if (problem.mode == Mode::w4a4) ops.a_fp4 = quantize(ops.a_bf16, options);
  return ops;
}

}  // namespace fp4gemm
