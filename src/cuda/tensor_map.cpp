#include "cuda/tensor_map.hpp"

#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <fmt/format.h>

#include "fp4gemm/error.hpp"

namespace fp4gemm::cuda {
namespace {

PFN_cuTensorMapEncodeTiled_v12000 encode_function() {
  static const PFN_cuTensorMapEncodeTiled_v12000 function = [] {
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult found{};
    const cudaError_t status = cudaGetDriverEntryPointByVersion(
        "cuTensorMapEncodeTiled", &entry, 12000, cudaEnableDefault, &found);
    if (status != cudaSuccess || found != cudaDriverEntryPointSuccess || entry == nullptr) {
      cudaGetLastError();
      throw Error(fmt::format("the CUDA driver has no cuTensorMapEncodeTiled (TMA needs a CUDA 12+ "
                              "driver): {}", cudaGetErrorString(status)));
    }
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(entry);
  }();
  return function;
}

}  // namespace

std::string tensor_map_problem(const TensorMap2d& map, const void* base) {
  const std::uint64_t box_bytes = std::uint64_t(map.box_cols) * std::uint64_t(map.element_bytes);
  if (reinterpret_cast<std::uintptr_t>(base) % 16 != 0)
    return "the tensor's address must be 16-byte aligned";
  if (map.cols == 0 || map.rows == 0 || map.cols > (std::uint64_t(1) << 32) ||
      map.rows > (std::uint64_t(1) << 32))
    return fmt::format("extents {} x {} must be 1 .. 2^32", map.rows, map.cols);
  if (map.row_stride_bytes % 16 != 0)
    return fmt::format("rows of {} bytes must be 16-byte aligned", map.row_stride_bytes);
  if (map.row_stride_bytes >= (std::uint64_t(1) << 40) ||
      map.row_stride_bytes < map.cols * std::uint64_t(map.element_bytes))
    return fmt::format("a row stride of {} bytes must hold a row and be below 2^40",
                       map.row_stride_bytes);
  if (map.box_cols == 0 || map.box_rows == 0 || map.box_cols > 256 || map.box_rows > 256)
    return fmt::format("box {} x {} must be 1 .. 256 per side", map.box_rows, map.box_cols);
  if (box_bytes % 16 != 0) return fmt::format("box rows of {} bytes must be a multiple of 16", box_bytes);
  if (map.swizzle == CU_TENSOR_MAP_SWIZZLE_128B && box_bytes > 128)
    return fmt::format("box rows of {} bytes exceed the 128-byte swizzle span", box_bytes);
  return "";
}

CUtensorMap encode_tensor_map(const TensorMap2d& map, const void* base) {
  const std::string problem = tensor_map_problem(map, base);
  if (!problem.empty()) throw InvalidArgument(fmt::format("TMA tensor map: {}", problem));
  CUtensorMap encoded{};
  const cuuint64_t dims[2] = {map.cols, map.rows};
  const cuuint64_t strides[1] = {map.row_stride_bytes};
  const cuuint32_t box[2] = {map.box_cols, map.box_rows};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult status = encode_function()(
      &encoded, map.dtype, 2, const_cast<void*>(base), dims, strides, box, element_strides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, map.swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (status != CUDA_SUCCESS)
    throw Error(fmt::format("cuTensorMapEncodeTiled refused a {} x {} map (box {} x {}): CUresult {}",
                            map.rows, map.cols, map.box_rows, map.box_cols, int(status)));
  return encoded;
}

}  // namespace fp4gemm::cuda
