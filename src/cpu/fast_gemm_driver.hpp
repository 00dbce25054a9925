#pragma once
// The ISA-independent part of cpu-fast's run(): which kernel, how the work is split across
// threads and blocked for the caches, and the final scaling and rounding.
#include <cstdint>

#include "cpu/fast_gemm_kernels.hpp"
#include "fp4gemm/matrix.hpp"

namespace fp4gemm::cpu {

// K block of the blocked kernel (a multiple of kKPad): kTileGroup x 256 decoded weights take
// 16 KB (L1), 240 activation rows x 256 take 240 KB (L2).
inline constexpr std::int64_t kKBlock = 256;

struct FastGemmArgs {
  const KernelTable* kernels = nullptr;
  WeightView weights;            // prepared B (fast_gemm_pack.hpp)
  const float* a = nullptr;      // packed A_hat: round_up(m, tile_m) rows x weights.k_padded
  std::int64_t m = 0, n = 0;     // the true M and N
  float alpha = 1.0f;            // alpha_total, applied once to the fp32 sums
  DType out_dtype = DType::f32;  // the fp32 result is rounded once more to this
  float* out = nullptr;          // m x n, every element written
};

// Whether M takes the streaming kernel (decode in registers) rather than the blocked one.
bool uses_stream(const KernelTable& kernels, std::int64_t m);

// D = round(alpha * sum_k A_hat B_hat^T), accumulated in fp32, on every hardware thread that
// the problem's size can use.
void run_fast_gemm(const FastGemmArgs& args);

}  // namespace fp4gemm::cpu
