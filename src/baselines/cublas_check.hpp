#pragma once
// cuBLAS / cuBLASLt error handling, in the style of cuda/cuda_check.hpp: every library call is
// checked, and a failure throws CublasError with the call, the status name, its description and
// file:line. Destructors use the noexcept variant, which reports to stderr instead of throwing.
// Helpers that make the call on their caller's behalf pass the caller's std::source_location, so
// that the message names the line that asked for it.
#include <cublas_api.h>

#include <cstdio>
#include <source_location>
#include <string>

#include <fmt/format.h>

#include "fp4gemm/error.hpp"

namespace fp4gemm::cuda {

class CublasError : public Error {
 public:
  CublasError(cublasStatus_t status, const std::string& message) : Error(message), status_(status) {}
  cublasStatus_t status() const { return status_; }

 private:
  cublasStatus_t status_;
};

inline void check_cublas(cublasStatus_t status, const char* what, const char* file, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw CublasError(status, fmt::format("cuBLAS error {} ({}) in {} at {}:{}", cublasGetStatusName(status),
                                        cublasGetStatusString(status), what, file, line));
}

inline void check_cublas(cublasStatus_t status, const char* what, const std::source_location& where) {
  check_cublas(status, what, where.file_name(), int(where.line()));
}

inline void check_cublas_noexcept(cublasStatus_t status, const char* what, const char* file,
                                  int line) noexcept {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  std::fprintf(stderr, "fp4gemm: cuBLAS error %s in %s at %s:%d (ignored in a destructor)\n",
               cublasGetStatusName(status), what, file, line);
}

}  // namespace fp4gemm::cuda

#define FP4GEMM_CUBLAS_CHECK(expr) ::fp4gemm::cuda::check_cublas((expr), #expr, __FILE__, __LINE__)
#define FP4GEMM_CUBLAS_CHECK_NOEXCEPT(expr) \
  ::fp4gemm::cuda::check_cublas_noexcept((expr), #expr, __FILE__, __LINE__)
