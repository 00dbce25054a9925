#pragma once
// The GEMM fp4gemm computes, its operands, and the CPU reference.
//
//   D[m][n] = alpha_total * sum_k A_hat[m][k] * B_hat[n][k]          (D = A B^T, "TN")
//
// B is always an FP4 tensor (the weights, N x K). A (the activations, M x K) is
//   w4a4:  an FP4 tensor of the same format,  A_hat = e2m1(q) * scale
//   w4a16: BF16,                               A_hat = the bf16 value
// B_hat = e2m1(q) * scale (the block value, without scale_2), and
//   alpha_total = alpha * B.scale_2 * (w4a4 ? A.scale_2 : 1).
// Block values are exact in fp32 and bf16, so an exact backend differs from the reference only
// by its accumulation order; D is rounded once, to `out_dtype`.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fp4gemm/matrix.hpp"
#include "fp4gemm/tensor.hpp"

namespace fp4gemm {

enum class Mode { w4a4, w4a16 };
std::string_view to_string(Mode m);
Mode parse_mode(std::string_view text, std::string_view argument = "--mode");

struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
  bool operator==(const GemmShape&) const = default;
};

// What a backend is asked to do, without the data: enough for can_implement().
struct GemmProblem {
  GemmShape shape;
  Mode mode = Mode::w4a16;
  Fp4Format format = Fp4Format::nvfp4;
  ScaleLayout scale_layout = ScaleLayout::linear;  // of A (w4a4) and B scales
  DType out_dtype = DType::f32;
  std::string describe() const;  // "nvfp4 w4a16 1x768x6144 -> f32"
  bool operator==(const GemmProblem&) const = default;
};

// Host operands. For w4a4 `a_fp4` is set and `a_bf16` may also hold the unquantized
// activations (backends that quantize on the fly use them); for w4a16 `a_bf16` is set.
struct GemmOperands {
  GemmProblem problem;
  Fp4Tensor b;                 // N x K
  Fp4Tensor a_fp4;             // M x K, w4a4
  HostMatrix a_bf16;           // M x K bf16, w4a16; w4a4: empty, or the source a_fp4 was
                               // quantized from (then the GPU kernels requantize it per call)
  float alpha = 1.0f;          // user factor, multiplied with the tensor scales
  float alpha_total() const;
  // w4a4 with the bf16 source of A in a_bf16 (what a GPU family requantizes in every call).
  bool has_a_source() const { return problem.mode == Mode::w4a4 && a_bf16.rows == problem.shape.m; }
  // Throws InvalidArgument naming the field if operands and problem disagree.
  void validate() const;
  // The B checks of validate() alone (B against N, K, format and layout; M not looked at).
  void validate_weights() const;
};

// The shape rules every backend shares: M, N >= 1; K >= 1 and a multiple of the block size.
// Throws InvalidArgument naming the dimension and the rule ("K = 100 is not a multiple of 16").
void validate_shape(const GemmShape& shape, Fp4Format format);

// Result of the CPU reference: D in double before output rounding, the same rounded to the
// output dtype (as floats), and for every element S = |alpha_total| * sum_k |A_hat B_hat|,
// the scale against which accumulation error is bounded.
struct ReferenceResult {
  std::vector<double> exact;
  std::vector<float> rounded;
  std::vector<double> abs_sum;
};

// Simple loops, double accumulation: the oracle of every other backend.
ReferenceResult reference_gemm(const GemmOperands& ops);

// Draw operands of `problem` from a seeded normal distribution (activations and weights with
// realistic outliers), quantized with the ModelOpt recipe. Same seed, same operands.
GemmOperands random_operands(const GemmProblem& problem, std::uint64_t seed);

// The same draws in two parts, for callers that run many GEMMs on one weight shape (`plan
// --measure`): the N x K weights alone (a stream of their own, ~seed), and operands of `problem`
// around given weights with activations drawn from `seed` (InvalidArgument if the weights do not
// fit the problem). Not the operands random_operands draws for the same seed.
Fp4Tensor random_weights(std::int64_t n, std::int64_t k, Fp4Format format, ScaleLayout layout, std::uint64_t seed);
GemmOperands random_operands(const GemmProblem& problem, std::uint64_t seed, const Fp4Tensor& weights);

}  // namespace fp4gemm
