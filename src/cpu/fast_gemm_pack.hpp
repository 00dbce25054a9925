#pragma once
// Operand packing of cpu-fast: the weights once, in prepare(); the activations in every run()
// (they change from call to call in real use, so their conversion is part of the timed region).
#include <cstdint>
#include <vector>

#include "cpu/fast_gemm_kernels.hpp"
#include "fp4gemm/gemm.hpp"

namespace fp4gemm::cpu {

// B as the kernels read it (WeightView): rows padded to a multiple of kRowPad and K to a
// multiple of kKPad with zero codes and zero scale codes (both decode to 0, so padding adds
// exact zeros), scales converted to the linear layout. Same 4.5 / 4.25 bits per element.
struct PreparedWeights {
  Fp4Format format = Fp4Format::nvfp4;
  std::int64_t rows = 0;      // N rounded up to kRowPad
  std::int64_t k_padded = 0;  // K rounded up to kKPad
  std::vector<std::uint8_t> codes;
  std::vector<std::uint8_t> scales;
  WeightView view() const;
};

PreparedWeights prepare_weights(const Fp4Tensor& b);

// The 256 decoded values of the scale codes of `format` (E4M3fn or UE8M0, NaN codes included).
const float* scale_lut(Fp4Format format);

// A_hat (w4a16: the bf16 values; w4a4: E2M1 x scale) as fp32 in the chunk order of `lanes`
// (fast_gemm_kernels.hpp): `rows` x k_padded floats (rows >= M), zero beyond M and K.
// Exact: every A_hat is representable in fp32. `out` is resized and overwritten.
void pack_activations(const GemmOperands& ops, int lanes, std::int64_t rows,
                      std::int64_t k_padded, std::vector<float>& out);

}  // namespace fp4gemm::cpu
