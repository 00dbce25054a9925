#pragma once
// Host side of the cuda-mma kernel family (mma_gemm.cuh): which tile config and split-K a
// problem gets, what it needs allocated, and the launch.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "cuda/kernel_operands.hpp"
#include "fp4gemm/backend.hpp"

namespace fp4gemm::cuda {

enum class MmaTile { m16, m64, m128 };

// The launch chosen for one problem on one GPU (plan_mma_gemm). Printable with describe().
struct MmaPlan {
  MmaTile tile = MmaTile::m128;
  int block_m = 0, block_n = 0, block_k = 0, threads = 0, stages = 0;
  int smem_bytes = 0;
  int tiles_m = 0, tiles_n = 0;
  int k_tiles = 0, splits = 1, k_tiles_per_split = 0;
  int ctas_per_sm = 0;                 // occupancy of the config, from the runtime
  std::size_t workspace_floats = 0;    // split-K partials (0 without split-K)
  std::size_t counters = 0;            // split-K tile counters, zeroed once
  std::string describe() const;        // "128x128x64, 4 stages, 256 threads, split-K 2 (192 CTAs)"
};

// What the kernel cannot take: only what the format forbids (validate_shape's rules).
Verdict mma_can_implement(const GemmProblem& problem);

// Whether this build holds machine code of the kernel for the current device (the fatbinary
// covers sm_80, 90a, 100a, 120a; e.g. sm_103 has none).
Verdict mma_kernel_image_present();

// Choose the tile config (by M) and split-K (to fill the current device's multiprocessors),
// and raise the kernel's dynamic shared-memory limit. Throws InvalidArgument if the problem is
// refused by mma_can_implement, Error if the device cannot hold the config.
MmaPlan plan_mma_gemm(const GemmProblem& problem);

// Enqueue the GEMM on `stream` (no allocation, no synchronization).
void launch_mma_gemm(const GemmProblem& problem, const MmaPlan& plan, const KernelPointers& ops,
                     cudaStream_t stream);

}  // namespace fp4gemm::cuda
