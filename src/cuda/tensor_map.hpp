#pragma once
// TMA tensor maps (CUtensorMap) of 2-D row-major tensors: the parameters as a plain struct whose
// rules can be checked on any machine (tensor_map_problem), and the encoding through the driver's
// cuTensorMapEncodeTiled, reached with cudaGetDriverEntryPointByVersion so that libcuda is not
// linked (the binary starts without a driver).
#include <cuda.h>

#include <cstdint>
#include <string>

namespace fp4gemm::cuda {

struct TensorMap2d {
  CUtensorMapDataType dtype = CU_TENSOR_MAP_DATA_TYPE_UINT8;
  int element_bytes = 1;
  std::uint64_t cols = 0, rows = 0;      // extents: innermost (contiguous) first
  std::uint64_t row_stride_bytes = 0;    // bytes from one row to the next
  std::uint32_t box_cols = 0, box_rows = 0;
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
};

// The first rule of cuTensorMapEncodeTiled (CUDA driver API, "Tensor Map Object Management")
// that `map` on data at `base` breaks, or "" if none: base 16-byte aligned; extents 1..2^32;
// row stride a multiple of 16 below 2^40 and at least one row; box extents 1..256 with
// box_cols * element_bytes a multiple of 16, and at most 128 under the 128-byte swizzle.
std::string tensor_map_problem(const TensorMap2d& map, const void* base);

// The encoded map (OOB elements read as zero, L2 promotion of 128 bytes). Throws InvalidArgument
// naming the rule that `map` breaks, Error if the driver entry point is missing or refuses it.
CUtensorMap encode_tensor_map(const TensorMap2d& map, const void* base);

}  // namespace fp4gemm::cuda
