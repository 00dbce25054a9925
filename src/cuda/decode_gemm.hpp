#pragma once
// Host side of the cuda-decode kernel family (decode_gemm.cuh): admission, the launch plan
// (token blocks, K-slices to fill the GPU) and the launch.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "cuda/kernel_operands.hpp"
#include "format/tiles.hpp"
#include "fp4gemm/backend.hpp"

namespace fp4gemm::cuda {

// The largest M the decode kernels take (4 blocks of 8 tokens).
inline constexpr std::int64_t kDecodeMaxM = 32;
// The largest K: the kernels stage A's rows at 32-bit element offsets (row x K, rows < 32).
inline constexpr std::int64_t kDecodeMaxK = INT32_MAX / kDecodeMaxM;

struct DecodePlan {
  int max_tokens = 8;           // the kernel instance: M <= 1 (block columns), 8, 16 or 32
  int warps = 4;                // per CTA: 4, or 8 (wide_ctas_wanted)
  int tiles_n = 0;              // CTAs along N (16 x warps rows each)
  int k_groups = 0;             // ceil(K / 128)
  int splits = 1;               // K-slices (grid y)
  int groups_per_split = 0;     // 128-k groups per K-slice
  int smem_bytes = 0;           // the A slice and the weight ring
  int ctas_per_sm = 0;          // occupancy, from the runtime
  bool dependent_launch = false;  // programmatic dependent launch (sm_90+: dependent_launch.cuh)
  // The K-slices of an N-tile are one thread-block cluster and sum through distributed shared
  // memory (decode_gemm.cuh step 4'; no workspace, no counters), else in global memory (step 4).
  bool splits_in_cluster = false;
  std::size_t workspace_floats = 0;
  std::size_t counters = 0;
  // B as prepare() uploads it: scales re-laid (decode_scale_tile_order), codes placed
  // (format/placed_codes.hpp) and re-laid (decode_code_tile_order).
  BForm b_form;
  // w4a4: the kernel stages A's block values as bf16 (code x block scale, exact), which the
  // GPU quantizer writes next to the codes in every call (KernelOperands), as it stages w4a16's A:
  // no FP4 decoding of A in each of the N-tiles' CTAs.
  bool a_block_values = false;
  // w4a4 whose operands carry A's bf16 source: every CTA quantizes its A slice itself
  // (decode_gemm.cuh step 1q) and no quantization kernel runs before the GEMM.
  bool a_quantized_in_kernel = false;
  std::string describe() const;  // "M <= 8: 96 x 6 CTAs of 128 threads, K-slices of 1024, ..."
};

// CTAs resident per SM of a decode-family kernel: the instance for M <= max_tokens in CTAs of
// `warps` warps, with smem_bytes of dynamic shared memory. Each launcher asks its own kernel
// (cuda-grouped's holds other registers than cuda-decode's).
using KernelOccupancy = std::function<int(int max_tokens, int warps, int smem_bytes)>;

// Where a plan's K-slices are summed: in global memory by the last CTA of each N-tile (step 4), or
// where the GPU can (sm_90+, at most kMaxClusterSplits K-slices, a cluster of them resident) in a
// thread-block cluster (step 4'), the K-slices then capped at kMaxClusterSplits. by_slice_count
// takes the cluster sums where the global plan has more than kMaxClusterSplits K-slices (so the
// cluster plan re-slices K into fewer, longer slices).
enum class SplitSums { by_slice_count, global, cluster_where_able };
inline constexpr int kMaxClusterSplits = 16;  // sm_90's largest (non-portable) cluster
// Measured on an H100 (bench/results/h100_decode_cluster_splitk and h100_decode_split_sums_rule,
// w4a16, K = 6144): where the global plan has 24-48 K-slices (N = 1024 .. 256) the cluster sums
// take up to 2.6 us off (16 x 512: 9.24 -> 6.60 us; 16 x 1024 alone loses 0.18 us); with exactly
// 16 (N = 2048, 1536) they lose at M = 1 (1 x 2048: 6.42 -> 7.69 us) and gain at M = 16 (0.5-0.7
// us); with 3-8 (N = 16384 .. 4096, 6144 x 2048) they add up to 10 us (16 x 16384: 39.64 -> 49.63
// us): a cluster's CTAs are placed together, and with few slices the workspace round trip they
// save is small.
// Whether a plan whose global sums would have `global_splits` K-slices sums them in clusters
// (where the GPU can).
bool cluster_sums_wanted(SplitSums sums, int global_splits);

// Where w4a4's activations are quantized in each call: by the GPU quantizer's kernel before the
// GEMM (separate), or by every CTA for its own A slice (in_kernel: no second launch, but every
// N-tile repeats the work before its GEMM starts); by_tile_count takes in_kernel at M = 1 with at
// most kInKernelQuantizeMaxTiles N-tiles, and at M >= 2 where M x N-tiles is at most
// kInKernelQuantizeMaxRowTiles. Measured on an H200 with a thread per scale block
// (bench/results/h200_decode_in_kernel_quantize, K = 6144, us separate -> in kernel): M = 1 with
// 4-64 N-tiles gains 0.8-0.9 (1 x 768 6.49 -> 5.71, 1 x 4096 9.82 -> 9.03), with 96 and 256 it
// loses 2.4-4.4. With a block spread over 4 / 8 threads (the quantizing instances; an H100,
// bench/results/staging_walk, us separate -> in kernel): 2 x 256 (4 N-tiles) 5.89 -> 5.76, 2 x
// 768 (12) 7.46 -> 6.79, 4 x 256 8.41 -> 6.80; but 4 x 768 7.60 -> 7.85, 8 x 256 8.41 -> 10.08
// and 16 x 256 9.15 -> 16.98 (M x N-tiles 48, 32, 64: the repeated work outgrows the launch).
enum class AQuantize { by_tile_count, separate, in_kernel };
inline constexpr std::int64_t kInKernelQuantizeMaxTiles = 64;
inline constexpr std::int64_t kInKernelQuantizeMaxRowTiles = 24;
bool a_quantized_in_kernel_wanted(AQuantize choice, std::int64_t tiles_n, std::int64_t m);

// CTAs of 4 warps (64 rows of B), or wide ones of 8 (128 rows), which stage their A slice once for
// twice the rows: at M > 8 the slice is 9..32 rows of bf16 per K-slice, and every N-tile stages it
// again. Only the 16- and 32-token instances exist in both widths, so M <= 8 keeps 4 warps whatever
// the choice. by_tile_count takes the wide CTAs at M > 8 where the launch has at least
// kWideCtaMinTiles N-tiles of 64 rows (all its GEMMs together), so that halving the CTAs still
// leaves many. Measured on an H100 (bench/results/h100_decode_cluster_splitk, w4a16, K = 6144, us
// 4 -> 8 warps, global sums): 16 x 16384 (256 tiles) 39.64 -> 35.08, 16 x 6144 (96) 19.25 ->
// 17.55, 16 x 4096 (64) 12.48 -> 14.90.
enum class CtaWidth { by_tile_count, narrow, wide };
inline constexpr std::int64_t kWideCtaMinTiles = 96;
bool wide_ctas_wanted(CtaWidth choice, std::int64_t m, std::int64_t narrow_tiles);

// K's k_groups 128-k groups cut into K-slices: as close to splits_wanted slices as 1..max_splits
// (and the groups) allow, none longer than max_groups (the A slice's shared memory), then
// rebalanced to the shortest equal length that keeps the count, so that no slice is a short
// remainder. (Before, 48 groups with at most 47 per slice were cut 47 + 1: at 4 tokens per GLM-5
// gate_up expert half the grouped launch's CTAs held one group, and the 47-group A slices left 3
// CTAs per SM: notes_grouped.md, "K-slices evened".)
struct KSlicing {
  int splits = 1;            // ceil(k_groups / groups_per_split)
  int groups_per_split = 1;  // ceil(k_groups / splits) <= max_groups
};
KSlicing balanced_k_slices(std::int64_t k_groups, std::int64_t splits_wanted, std::int64_t max_splits,
                           int max_groups);

// The K-slice count at M > 8 (the 16- and 32-token instances), by waves: for each count s from
// the fewest slices of at most max_groups 128-k groups up to the most of at least min_groups (one
// length g = ceil(k_groups / s) each), the CTAs gemm_tiles x s fill ceil(CTAs / resident) waves of
// resident = sms x ctas_per_sm(g) CTAs (the occupancy with a g-group A slice); the score is the
// share of the last wave's slots that hold a CTA, times min(1, warps x ctas_per_sm(g) /
// kSliceWarpsPerSmWanted) (fewer warps per SM hide less latency). The fewest slices whose score
// beats every longer slicing by more than kSliceScoreTie win: longer slices cost less start-up and
// fewer split-K sums. The plan's min_groups: kMinSliceGroups16 (16 tokens) or kMinSliceGroups32
// (32 tokens), or the CTA-count rule's slice where that is shorter (small N or K: there only short
// slices give the GPU enough CTAs). Measured (bench/results/decode_batched_staging on an H200,
// decode_slices_by_waves on an H100; w4a16, K = 6144, us, the CTA-count rule's count first): 16 x
// 16384 in 5, 6, 8, 12 slices 31.5, 28.2, 29.6, 35.1 (H200; this rule: 6); 16 x 6144 in 5, 6, 8,
// 10, 12: 14.7, 15.3, 13.2, 15.9, 16.4 (H200; 8); 32 x 16384 in 10, 12: 51.4, 47.7 (H200; 12); 32
// x 6144 in 10, 12: 23.2, 21.9 (H200; 12), in 16 (3 groups) 24.9 against 24.1 in 10 (H100); 16 x
// 4096 (narrow) in 12 (4 groups) 13.5 against 12.7 in 8 (H100; 8).
inline constexpr int kSliceWarpsPerSmWanted = 24;
inline constexpr double kSliceScoreTie = 0.02;
inline constexpr int kMinSliceGroups16 = 6;
inline constexpr int kMinSliceGroups32 = 4;
std::int64_t k_slices_by_waves(std::int64_t k_groups, int max_groups, int min_groups, std::int64_t gemm_tiles,
                               std::int64_t sms, int warps, const std::function<int(int groups)>& ctas_per_sm);

// cuda-decode's choices. From the environment (experiment switches): FP4GEMM_DECODE_SPLIT_SUMS =
// "auto" (also when unset or empty: by_slice_count), "global" or "cluster" (cluster_where_able);
// FP4GEMM_DECODE_A_QUANTIZE = "auto" (by_tile_count), "separate" or "kernel" (in_kernel);
// FP4GEMM_DECODE_CTA = "auto" (by_tile_count), "narrow" or "wide" (also cuda-grouped's);
// FP4GEMM_DECODE_K_SLICES = "auto" (k_slices = 0: the planner's count) or a count 1..65535 of
// K-slices wanted (the planner still caps it by K's 128-k groups and lengthens slices whose A would
// not fit, so the plan may have fewer; describe() says how many). Any other value throws
// InvalidArgument naming the variable and its values.
struct DecodeChoices {
  SplitSums split_sums = SplitSums::by_slice_count;
  AQuantize a_quantize = AQuantize::by_tile_count;
  CtaWidth cta_width = CtaWidth::by_tile_count;
  int k_slices = 0;
};
DecodeChoices decode_choices_from_environment();
SplitSums parse_split_sums(std::string_view value);
AQuantize parse_a_quantize(std::string_view value);
CtaWidth parse_cta_width(std::string_view value);
int parse_k_slices(std::string_view value);

// Format rules (validate_shape), M <= kDecodeMaxM and K <= kDecodeMaxK.
Verdict decode_can_implement(const GemmProblem& problem);
// Whether this build holds machine code of the kernels for the current device.
Verdict decode_kernel_image_present();
// Throws InvalidArgument when decode_can_implement refuses the problem. `gemms_per_launch`: how
// many GEMMs of this shape one launch runs side by side (cuda-grouped: the experts expected to
// receive tokens); the K-splits are planned so that all of them together give the CTAs wanted.
// `occupancy`: the launching kernel's (empty: cuda-decode's own).
DecodePlan plan_decode_gemm(const GemmProblem& problem, std::int64_t gemms_per_launch, DecodeChoices choices,
                            const KernelOccupancy& occupancy = {});
// The order in which prepare() re-lays B's scales for the decode kernels (format/tiles.hpp):
// one tile per 16 rows (a warp's) x 128 k (a group), lane (g, t)'s bytes together: NVFP4 128
// bytes, byte (r, j) at 4 (4 (r % 8) + j / 2) + 2 (r / 8) + j % 2; MXFP4 64 bytes, byte (r, j) at
// 2 (4 (r % 8) + j) + r / 8.
TileOrder decode_scale_tile_order(Fp4Format format);

// The order in which prepare() re-lays B's (placed) codes for the decode kernels: one 1024-byte
// tile per 16 rows x 128 k, the image of a warp's ring stage: row r's 16-byte unit u (k = 32u ..
// 32u + 31 of the group) at slot (r / 8) * 32 + 4 (r % 8) + u, lane (g, t) = (r % 8, u)'s slot of
// row pair r / 8, so a warp's copies of a group read 1024 contiguous bytes.
TileOrder decode_code_tile_order();

void launch_decode_gemm(const GemmProblem& problem, const DecodePlan& plan,
                        const KernelPointers& ops, cudaStream_t stream);

}  // namespace fp4gemm::cuda
