#pragma once
// RAII owners of cuBLAS and cuBLASLt objects (handles, matmul descriptors, matrix layouts,
// preferences): move-only unique_ptrs whose deleter calls the library's destroy function and
// reports, never throws, a failure. make_*() create them, checked.
#include <cublasLt.h>
#include <cublas_v2.h>

#include <cstdint>
#include <memory>
#include <source_location>
#include <type_traits>

#include "baselines/cublas_check.hpp"

namespace fp4gemm::baselines {

template <auto Destroy>
struct CublasDeleter {
  template <typename Handle>
  void operator()(Handle h) const noexcept {
    FP4GEMM_CUBLAS_CHECK_NOEXCEPT(Destroy(h));
  }
};

template <typename Handle, auto Destroy>
using CublasUnique = std::unique_ptr<std::remove_pointer_t<Handle>, CublasDeleter<Destroy>>;

using CublasHandle = CublasUnique<cublasHandle_t, cublasDestroy>;
using LtHandle = CublasUnique<cublasLtHandle_t, cublasLtDestroy>;
using LtMatmulDesc = CublasUnique<cublasLtMatmulDesc_t, cublasLtMatmulDescDestroy>;
using LtMatrixLayout = CublasUnique<cublasLtMatrixLayout_t, cublasLtMatrixLayoutDestroy>;
using LtPreference = CublasUnique<cublasLtMatmulPreference_t, cublasLtMatmulPreferenceDestroy>;

inline CublasHandle make_cublas_handle() {
  cublasHandle_t h = nullptr;
  FP4GEMM_CUBLAS_CHECK(cublasCreate(&h));
  return CublasHandle(h);
}

inline LtHandle make_lt_handle() {
  cublasLtHandle_t h = nullptr;
  FP4GEMM_CUBLAS_CHECK(cublasLtCreate(&h));
  return LtHandle(h);
}

inline LtMatmulDesc make_matmul_desc(cublasComputeType_t compute, cudaDataType_t scale_type) {
  cublasLtMatmulDesc_t d = nullptr;
  FP4GEMM_CUBLAS_CHECK(cublasLtMatmulDescCreate(&d, compute, scale_type));
  return LtMatmulDesc(d);
}

// A column-major rows x cols matrix of `type` with leading dimension `ld` (elements).
inline LtMatrixLayout make_layout(cudaDataType_t type, std::int64_t rows, std::int64_t cols,
                                  std::int64_t ld) {
  cublasLtMatrixLayout_t l = nullptr;
  FP4GEMM_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&l, type, std::uint64_t(rows), std::uint64_t(cols), ld));
  return LtMatrixLayout(l);
}

inline LtPreference make_preference() {
  cublasLtMatmulPreference_t p = nullptr;
  FP4GEMM_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&p));
  return LtPreference(p);
}

// Attribute setters; a failure names the caller's line.
template <typename T>
void set_attribute(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attribute, const T& value,
                   std::source_location where = std::source_location::current()) {
  cuda::check_cublas(cublasLtMatmulDescSetAttribute(desc, attribute, &value, sizeof value),
                     "cublasLtMatmulDescSetAttribute", where);
}

template <typename T>
void set_attribute(cublasLtMatmulPreference_t pref, cublasLtMatmulPreferenceAttributes_t attribute,
                   const T& value, std::source_location where = std::source_location::current()) {
  cuda::check_cublas(cublasLtMatmulPreferenceSetAttribute(pref, attribute, &value, sizeof value),
                     "cublasLtMatmulPreferenceSetAttribute", where);
}

}  // namespace fp4gemm::baselines
