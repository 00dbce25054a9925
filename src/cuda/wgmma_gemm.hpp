#pragma once
// Host side of the cuda-wgmma kernel family (wgmma_gemm.cuh, sm_90a): admission, the launch plan,
// the two TMA tensor maps, and the launch.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "cuda/kernel_operands.hpp"
#include "cuda/tensor_map.hpp"
#include "fp4gemm/backend.hpp"

namespace fp4gemm::cuda {

// The launch of one problem (plan_wgmma_gemm). Printable with describe().
struct WgmmaPlan {
  int block_n = 0, block_m = 0, block_k = 0;  // weight rows x tokens x K per tile
  int stages = 0, threads = 0, smem_bytes = 0;
  int tiles_n = 0, tiles_m = 0, tiles = 0, k_tiles = 0;
  int splits = 1, k_tiles_per_split = 0;  // split-K
  int units = 0;                           // tiles x splits
  int grid = 0;                            // persistent CTAs: min(units, multiprocessors)
  std::size_t workspace_floats = 0;        // split-K partial tiles (units x BN x BM)
  std::size_t counters = 0;                // split-K: one per tile
  std::string describe() const;  // "128x256x64 (N x M x K), 6 stages, 384 threads, ..."
};

// What the kernel cannot take: the format's rules (validate_shape), and NVFP4 K not a multiple of
// 32 (TMA needs 16-byte aligned rows of B: K/2 bytes). Needs no GPU.
Verdict wgmma_can_implement(const GemmProblem& problem);

// Whether this build holds machine code of the kernel for the current device.
Verdict wgmma_kernel_image_present();

// The plan's experiment switches (environment_choice.hpp), for measuring the cost model's
// alternatives: FP4GEMM_WGMMA_BM = auto | 32 | 64 | 128 | 256 forces the token tile (32 and 64
// run only where forced: the model has no times for them yet), FP4GEMM_WGMMA_SPLITS = auto | 1..16
// the K-split count (more than 1 not with the 256-token tile, which has no split-K reduction; at
// most the K-tiles, and like the model's own counts evened so that no split is empty: 13 splits
// of 96 K-tiles run as 12 of 8). 0: the cost model decides.
struct WgmmaChoices {
  int block_m = 0;
  int splits = 0;
};
// The switches' values as given (InvalidArgument naming the variable for anything else, and for
// splits > 1 with block_m = 256).
WgmmaChoices parse_wgmma_choices(std::string_view block_m, std::string_view splits);
WgmmaChoices wgmma_choices_from_environment();

// The plan for a GPU with `multiprocessors` SMs (no device call): 128 weight rows x BM tokens per
// tile (BM = 128 or 256; 32 or 64 when forced) and the split-K count, by the cost model in
// wgmma_gemm.cu (predicted time: waves of the persistent grid x (a unit's fixed cost + K-tiles
// per split x a K-tile's cost) + the split-K reduction) among the configs `choices` leaves.
// Throws InvalidArgument if the problem is refused by wgmma_can_implement or no config is left.
WgmmaPlan wgmma_plan_for(const GemmProblem& problem, int multiprocessors, const WgmmaChoices& choices = {});

// wgmma_plan_for on the current device, with the kernel's shared-memory limit raised. Throws
// Error if the device cannot hold the config.
WgmmaPlan plan_wgmma_gemm(const GemmProblem& problem, const WgmmaChoices& choices);

// The tensor maps' parameters: activations (M x K bf16, boxes of 64 k x block_m tokens, 128-byte
// swizzle) and weights (N x K/2 code bytes, boxes of 32 bytes x 128 rows). Needs no GPU.
TensorMap2d wgmma_activation_map(const GemmProblem& problem, int block_m);
TensorMap2d wgmma_weight_map(const GemmProblem& problem);

// B's re-laid scales (wgmma_scale_tile_order) as rows of 128 bytes, boxes of 4 rows: one 512-byte
// tile per (N tile, K-tile), row (n_tile * k_tiles + kt) * 4 first.
TensorMap2d wgmma_scale_map(const GemmProblem& problem);

struct WgmmaTensorMaps {
  CUtensorMap activations{}, weights{}, scales{};
};
// The three maps encoded for the operands at `activations` (bf16), `weights` (FP4 codes) and
// `scale_tiles` (B's re-laid scales).
WgmmaTensorMaps encode_wgmma_maps(const GemmProblem& problem, const WgmmaPlan& plan,
                                  const std::uint16_t* activations, const std::uint8_t* weights,
                                  const std::uint8_t* scale_tiles);

// The order in which prepare() re-lays B's scales (format/tiles.hpp): one 512-byte tile per
// 128 weight rows x 64 k, row r's block scales of the K-tile in its word r (byte j: block j;
// NVFP4 4 blocks, MXFP4 2), which the producer brings in as one TMA box per K-tile (wgmma_scale_map).
TileOrder wgmma_scale_tile_order(Fp4Format format);

// Enqueue the GEMM on `stream` (no allocation, no synchronization). maps: the activations, B's
// codes and B's re-laid scales (the kernel reads B only through them); ops: alpha, out, and the
// split-K workspace and counters.
void launch_wgmma_gemm(const GemmProblem& problem, const WgmmaPlan& plan,
                       const WgmmaTensorMaps& maps, const KernelPointers& ops, cudaStream_t stream);

}  // namespace fp4gemm::cuda
