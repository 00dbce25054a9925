#pragma once
// CUDA error handling: every runtime call and every launch is checked, and a failure throws
// CudaError with the call, the error name, the message and file:line. Destructors use the
// noexcept variant, which reports to stderr instead of throwing.
#include <cuda_runtime.h>

#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "fp4gemm/error.hpp"

namespace fp4gemm::cuda {

class CudaError : public Error {
 public:
  CudaError(cudaError_t code, const std::string& message) : Error(message), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

inline void check(cudaError_t status, const char* what, const char* file, int line) {
  if (status == cudaSuccess) return;
  throw CudaError(status, fmt::format("CUDA error {} ({}) in {} at {}:{}", cudaGetErrorName(status),
                                      cudaGetErrorString(status), what, file, line));
}

inline void check_noexcept(cudaError_t status, const char* what, const char* file, int line) noexcept {
  if (status == cudaSuccess) return;
  std::fprintf(stderr, "fp4gemm: CUDA error %s in %s at %s:%d (ignored in a destructor)\n",
               cudaGetErrorName(status), what, file, line);
}

}  // namespace fp4gemm::cuda

#define FP4GEMM_CUDA_CHECK(expr) ::fp4gemm::cuda::check((expr), #expr, __FILE__, __LINE__)
#define FP4GEMM_CUDA_CHECK_NOEXCEPT(expr) \
  ::fp4gemm::cuda::check_noexcept((expr), #expr, __FILE__, __LINE__)
// After every kernel launch: catches bad configurations at once (asynchronous faults surface at
// the next synchronizing call, which is checked too).
#define FP4GEMM_CUDA_CHECK_LAUNCH() \
  ::fp4gemm::cuda::check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
