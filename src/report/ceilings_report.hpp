#pragma once
// The table `fp4gemm ceilings` prints: each measured ceiling next to the datasheet's value for
// this GPU and their ratio, with how it was measured (or why there is no value).
#include <string>

#include "bench/ceilings.hpp"
#include "bench/measured_ceilings.hpp"

namespace fp4gemm {

//   ceiling           measured         datasheet        ratio  method
//   DRAM read         4312 GB/s        4800 GB/s        90%    read-only kernel, ...
//   DRAM copy         3850 GB/s        4800 GB/s        80%    cudaMemcpyAsync device to device, ...
//   BF16 tensor       785 TFLOPS       989 TFLOPS       79%    cublas-bf16 (...), 8192x8192x8192 ...
//   FP4 tensor        -                none             -      none: no FP4 tensor cores (sm_90)
// `datasheet`: lookup_ceilings of the GPU (its values "unknown" when it is not in the table).
std::string ceilings_table(const MeasuredCeilings& m, const Ceilings& datasheet);

}  // namespace fp4gemm
