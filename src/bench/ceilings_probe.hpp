#pragma once
// The measurements of `fp4gemm ceilings` on one GPU (the current CUDA device):
//   read_gbps    the read kernel of src/cuda/bandwidth_probe.cu over read_bytes;
//   copy_gbps    cudaMemcpyAsync device to device of read_bytes / 2, read + write counted;
//   bf16_tflops  cublas-bf16 (cublasGemmEx, BF16 in, FP32 accumulate), gemm_size^3 -> bf16;
//   fp8_tflops   cublaslt-fp8 (cuBLASLt, E4M3 in, FP32 accumulate), same shape; none below sm_89;
//   fp4_tflops   cublaslt-nvfp4 (cuBLASLt, NVFP4 in), same shape; none below sm_100.
// Each value is the best of `repetitions` timed calls (CUDA events) after `warmup` untimed ones;
// TFLOPS = 2 n^3 / time. The GEMMs run on the same seeded operands bench uses (random_operands:
// normal activations, NVFP4 weights), through the same backends whose rows bench reports.
// Implemented in src/cuda/ceilings_probe.cpp; a build without CUDA throws Error.
#include <cstddef>
#include <cstdint>

#include "bench/measured_ceilings.hpp"
#include "fp4gemm/device.hpp"

namespace fp4gemm {

struct CeilingsProbeOptions {
  std::int64_t gemm_size = 8192;  // M = N = K
  int warmup = 5;
  int repetitions = 20;
  // 0: max(2 GiB, 8 x L2), at most a quarter of the memory, a multiple of 16 bytes: far past
  // the L2, so that the read kernel measures DRAM.
  std::size_t read_bytes = 0;
};

// `gpu` describes the current device; `key` is recorded with the result.
MeasuredCeilings measure_ceilings(const GpuInfo& gpu, const CeilingsKey& key,
                                  const CeilingsProbeOptions& options);

}  // namespace fp4gemm
