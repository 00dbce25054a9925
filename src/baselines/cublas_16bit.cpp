#include "baselines/cublas_16bit.hpp"

#include <atomic>
#include <climits>

#include <fmt/format.h>

#include "baselines/cublas_conventions.hpp"
#include "cpu/parallel_for.hpp"
#include "fp4gemm/codecs.hpp"
#include "fp4gemm/error.hpp"

namespace fp4gemm::baselines {

std::vector<std::uint16_t> exact_16bit(const std::vector<float>& values, DType t, const char* operand) {
  std::vector<std::uint16_t> codes(values.size());
  // On the hardware threads, a thread per 2^16 elements at least (a grouped baseline converts
  // every expert's weights); the error names the first inexact element whatever the thread count.
  std::atomic<std::size_t> first_inexact{values.size()};
  const auto count = std::int64_t(values.size());
  cpu::parallel_for(count, [&](std::int64_t begin, std::int64_t end) {
    for (auto i = std::size_t(begin); i < std::size_t(end); ++i) {
      const float v = values[i];
      codes[i] = t == DType::bf16 ? bf16_from_float(v) : fp16_from_float(v);
      const float back = t == DType::bf16 ? bf16_to_float(codes[i]) : fp16_to_float(codes[i]);
      if (back == v) continue;
      std::size_t seen = first_inexact.load();
      while (i < seen && !first_inexact.compare_exchange_weak(seen, i)) {
      }
      return;
    }
  }, cpu::threads_for(count, cpu::kElementwiseGrain));
  const std::size_t i = first_inexact.load();
  require(i == values.size(), "{}[{}] = {} is not exact in {}: cublas-bf16 would change the operand", operand, i,
          i < values.size() ? values[i] : 0.0f, to_string(t));
  return codes;
}

Verdict cublas_16bit_can_implement(const GemmProblem& p) {
  const GemmShape& s = p.shape;
  if (s.m > INT_MAX || s.n > INT_MAX || s.k > INT_MAX)
    return Verdict::no(fmt::format("{}x{}x{}: cublasGemmEx takes int dimensions (at most {})",
                                   s.m, s.n, s.k, INT_MAX));
  if (p.out_dtype == DType::f16 && !(p.format == Fp4Format::nvfp4 && p.mode == Mode::w4a4))
    return Verdict::no(fmt::format(
        "f16 output of {} {}: cuBLAS has no bf16 x bf16 -> f16 GEMM, and these operands are not "
        "all exact in fp16 (only NVFP4 block values are); ask for bf16 or f32",
        to_string(p.format), to_string(p.mode)));
  return Verdict::yes();
}

Accuracy cublas_16bit_accuracy() {
  return {true, 0.0, 0x1p-23, "exact: bf16 block values, tensor cores, fp32 accumulate"};
}

DType cublas_operand_dtype(const GemmProblem& problem) {
  return problem.out_dtype == DType::f16 ? DType::f16 : DType::bf16;
}

void bind_cublas_stream(cublasHandle_t handle, cudaStream_t stream,
                        cuda::DeviceBuffer<std::uint8_t>& workspace) {
  // The stream first: cublasSetStream resets the workspace to cuBLAS's own pool.
  FP4GEMM_CUBLAS_CHECK(cublasSetStream(handle, stream));
  FP4GEMM_CUBLAS_CHECK(cublasSetWorkspace(handle, workspace.get(), workspace.bytes()));
}

CublasHandle make_exact_cublas_handle(cudaStream_t stream, cuda::DeviceBuffer<std::uint8_t>& workspace) {
  CublasHandle handle = make_cublas_handle();
  bind_cublas_stream(handle.get(), stream, workspace);
  // Split-K partial sums reduced in a 16-bit output type would round once per split, which the
  // exactness claim does not allow: reductions stay in fp32.
  FP4GEMM_CUBLAS_CHECK(cublasSetMathMode(
      handle.get(), cublasMath_t(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)));
  return handle;
}

void cublas_gemm_16bit(cublasHandle_t handle, const GemmShape& shape, DType operand_dtype,
                       const std::uint16_t* a, const std::uint16_t* b, float alpha, void* d,
                       DType out_dtype) {
  // Row-major D = A B^T as column-major D' = op(A') op(B'): see cublas_conventions.hpp.
  const ColumnMajorGemm g = column_major(shape);
  const cudaDataType_t operand_type = cuda_data_type(operand_dtype);
  const float beta = 0.0f;  // host pointer mode
  FP4GEMM_CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, int(g.m), int(g.n), int(g.k), &alpha,
                                    b, operand_type, int(g.lda), a, operand_type, int(g.ldb), &beta, d,
                                    cuda_data_type(out_dtype), int(g.ldd), CUBLAS_COMPUTE_32F,
                                    CUBLAS_GEMM_DEFAULT));
}

}  // namespace fp4gemm::baselines
