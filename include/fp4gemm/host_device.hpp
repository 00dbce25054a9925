#pragma once
// FP4GEMM_HD marks a function that is compiled for both the host and the device, so that the
// CPU and GPU quantizers share one definition of every rounding rule (bit-identical by
// construction, not by coincidence).
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define FP4GEMM_HD __host__ __device__ __forceinline__
#else
#define FP4GEMM_HD inline
#endif

namespace fp4gemm {

FP4GEMM_HD std::uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
#endif
}

FP4GEMM_HD float float_from_bits(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
#endif
}

}  // namespace fp4gemm
