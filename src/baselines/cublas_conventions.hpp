#pragma once
// What every cuBLAS baseline shares: how fp4gemm's row-major "TN" GEMM is put to column-major
// cuBLAS, the cuBLAS type of each output dtype, and the workspace the baselines grant.
//
// fp4gemm computes D = A B^T with A (M x K), B (N x K) and D (M x N) row-major (K-major operands).
// cuBLAS reads matrices column-major, and a row-major R x C matrix is the column-major C x R
// matrix of the same bytes (its transpose). So, in cuBLAS's terms:
//   A' = B's bytes: column-major K x N, ld = K, used transposed    (op T)  -> N x K
//   B' = A's bytes: column-major K x M, ld = K, used as is          (op N)  -> K x M
//   D' = D's bytes: column-major N x M, ld = N
// and D' = op(A') op(B') = B A^T = (A B^T)^T = D read column-major: cuBLAS's m, n, k are our
// N, M, K. A transposed and B not is the "TN" form that cuBLASLt's FP8 and FP4 kernels require.
#include <library_types.h>

#include <cstddef>
#include <cstdint>

#include "fp4gemm/gemm.hpp"

namespace fp4gemm::baselines {

struct ColumnMajorGemm {
  std::int64_t m, n, k;  // cuBLAS's dimensions: N, M, K
  std::int64_t lda;      // of A' (our B): K
  std::int64_t ldb;      // of B' (our A): K
  std::int64_t ldd;      // of D': N
};

constexpr ColumnMajorGemm column_major(const GemmShape& s) { return {s.n, s.m, s.k, s.k, s.k, s.n}; }

constexpr cudaDataType_t cuda_data_type(DType t) {
  switch (t) {
    case DType::f32: return CUDA_R_32F;
    case DType::bf16: return CUDA_R_16BF;
    case DType::f16: return CUDA_R_16F;
  }
  return CUDA_R_32F;
}

// Workspace granted to cuBLAS and cuBLASLt: NVIDIA recommends 32 MiB on Hopper and Blackwell
// (split-K and stream-K algorithms need it; some are not offered with less).
inline constexpr std::size_t kWorkspaceBytes = std::size_t(32) << 20;

}  // namespace fp4gemm::baselines
