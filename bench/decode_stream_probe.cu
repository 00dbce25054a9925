// decode_stream_probe: how fast this GPU streams a decode GEMM's weight bytes in cuda-decode's
// access pattern when nothing is computed on them. cuda-decode v10's ablation put the weight
// stream of 1 x 16384 x 6144 at 17.3 us (3.27 TB/s, 71 % of the 4605 GB/s that `fp4gemm
// ceilings` reads with a grid-wide sweep; src/cuda/notes_decode.md); this program separates the
// access pattern and the copy mechanism from the kernel's dequantization and MMAs.
//
// stream_kernel<kMechanism, kLayout, kStages> (cuda-decode's grid: N-tiles of 64 rows x K-slices,
// 4 warps per CTA, warp w streaming the 16-row tile 4 * tile + w over its K-slice's groups):
//  1. A group of a 16-row tile is a 1024-byte code tile and a 128-byte scale tile (NVFP4) in two
//     arrays, as cuda-decode's prepare() lays them out. Tile (row tile rt, group i) sits at index
//     rt * k_groups + i (row-major: cuda-decode's order, a warp's groups contiguous) or
//     i * row_tiles + rt (group-major: at each step the warps of the grid read adjacent tiles).
//  2. Each warp has a kStages-deep ring in shared memory holding kStages - 1 groups in flight.
//     cp_async fills it as decode_gemm.cuh step 2 does: each lane issues two 16-byte cp.async of
//     codes, lanes 0..7 one of scales, and waits with cp.async.wait_group plus __syncwarp. bulk
//     fills it with two cp.async.bulk from lane 0 onto the stage's mbarrier (sm_90+).
//  3. To consume a group, each lane reads its 36 bytes of the stage and folds them into an XOR
//     accumulator, then spins `work` clock cycles. The spin stands in for the dequantization and
//     MMAs; work = 0 is the pure stream.
//  4. A warp XOR-reduction and one atomicXor into *sink keep every load live.
// Timing: `reps` launches back to back, each on the next of several copies of the weights (the
// copies together at least 4x the L2, so every launch reads from DRAM), with cudaEvents around
// them. The time per launch is the total divided by reps, and GB/s counts code and scale bytes.
#include <CLI/CLI.hpp>
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cuda/cuda_check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/mma_primitives.cuh"
#include "cuda/sm90_primitives.cuh"
#include "fp4gemm/error.hpp"
#include "fp4gemm/io.hpp"

namespace fp4gemm::cuda {
namespace {

enum class Mechanism { cp_async, bulk };
enum class Layout { row_major, group_major };

constexpr int kWarps = 4;
constexpr int kThreads = 32 * kWarps;
constexpr int kCodeBytes = 1024, kScaleBytes = 128, kStageBytes = kCodeBytes + kScaleBytes;

struct Geometry {
  int row_tiles = 0;         // 16-row tiles of B (kWarps per CTA)
  int k_groups = 0;          // 128-k groups of K
  int groups_per_split = 0;  // of one K-slice (grid y)
  long long work = 0;        // clock cycles spun per group
};

template <Layout kLayout>
__device__ __forceinline__ std::int64_t tile_index(const Geometry& g, int rt, int group) {
  return kLayout == Layout::row_major ? std::int64_t(rt) * g.k_groups + group
                                      : std::int64_t(group) * g.row_tiles + rt;
}

// Steps 1-4 of one CTA.
template <Mechanism kMechanism, Layout kLayout, int kStages>
__device__ __forceinline__ void stream_cta(const std::uint8_t* codes, const std::uint8_t* scales, const Geometry& g,
                                           unsigned* sink) {
  extern __shared__ uint4 smem[];
  __shared__ std::uint64_t full[kWarps][kStages];  // bulk: one mbarrier per stage
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const int rt = int(blockIdx.x) * kWarps + warp;
  const int first = int(blockIdx.y) * g.groups_per_split;
  const int groups = min(g.groups_per_split, g.k_groups - first);
  std::uint8_t* ring = reinterpret_cast<std::uint8_t*>(smem) + warp * kStages * kStageBytes;
  if constexpr (kMechanism == Mechanism::bulk) {
    if (lane == 0)
      for (int s = 0; s < kStages; ++s) sm90::mbarrier_init(&full[warp][s], 1);
    sm90::fence_barrier_init();
    __syncwarp();
  }
  // 2. Group `group` of the slice into ring stage `stage`.
  const auto copy_group = [&](int group, int stage) {
    if (group >= groups) return;
    const std::int64_t t = tile_index<kLayout>(g, rt, first + group);
    std::uint8_t* dst = ring + stage * kStageBytes;
    if constexpr (kMechanism == Mechanism::cp_async) {
      mma::cp_async_16(dst + 16 * lane, codes + t * kCodeBytes + 16 * lane);
      mma::cp_async_16(dst + 512 + 16 * lane, codes + t * kCodeBytes + 512 + 16 * lane);
      if (lane < kScaleBytes / 16) mma::cp_async_16(dst + kCodeBytes + 16 * lane, scales + t * kScaleBytes + 16 * lane);
    } else if (lane == 0) {
      sm90::mbarrier_arrive_expect_tx(&full[warp][stage], kStageBytes);
      sm90::bulk_load(dst, codes + t * kCodeBytes, kCodeBytes, &full[warp][stage]);
      sm90::bulk_load(dst + kCodeBytes, scales + t * kScaleBytes, kScaleBytes, &full[warp][stage]);
    }
  };
  for (int s = 0; s < kStages - 1; ++s) {
    copy_group(s, s);
    if constexpr (kMechanism == Mechanism::cp_async) mma::cp_async_commit();
  }
  unsigned acc = 0;
  int stage = 0;
  for (int i = 0; i < groups; ++i) {
    if constexpr (kMechanism == Mechanism::cp_async)
      mma::cp_async_wait<kStages - 2>();
    else
      sm90::mbarrier_wait(&full[warp][stage], (i / kStages) & 1);
    __syncwarp();  // every lane is done with the stage consumed last step
    copy_group(i + kStages - 1, stage == 0 ? kStages - 1 : stage - 1);
    if constexpr (kMechanism == Mechanism::cp_async) mma::cp_async_commit();
    // 3.
    const std::uint8_t* st = ring + stage * kStageBytes;
    const uint4 c0 = *reinterpret_cast<const uint4*>(st + 16 * lane);
    const uint4 c1 = *reinterpret_cast<const uint4*>(st + 512 + 16 * lane);
    const unsigned s = *reinterpret_cast<const unsigned*>(st + kCodeBytes + 4 * lane);
    acc ^= c0.x ^ c0.y ^ c0.z ^ c0.w ^ c1.x ^ c1.y ^ c1.z ^ c1.w ^ s;
    if (g.work > 0) {
      const long long start = clock64();
      while (clock64() - start < g.work) {
      }
    }
    stage = stage == kStages - 1 ? 0 : stage + 1;
  }
  // 4.
  acc = __reduce_xor_sync(0xFFFFFFFFu, acc);
  if (lane == 0) atomicXor(sink, acc);
}

template <Mechanism kMechanism, Layout kLayout, int kStages>
__global__ void __launch_bounds__(kThreads)
    stream_kernel(const std::uint8_t* codes, const std::uint8_t* scales, Geometry g, unsigned* sink) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  if constexpr (kMechanism == Mechanism::bulk)
    __trap();  // no bulk copies before sm_90; the host runs these variants on sm_90+ only
  else
#endif
    stream_cta<kMechanism, kLayout, kStages>(codes, scales, g, sink);
}

struct Variant {
  Mechanism mechanism;
  Layout layout;
  int stages;
  void (*kernel)(const std::uint8_t*, const std::uint8_t*, Geometry, unsigned*);
};

template <Mechanism M, Layout L, int S>
Variant variant() {
  return {M, L, S, stream_kernel<M, L, S>};
}

const char* name(Mechanism m) { return m == Mechanism::cp_async ? "cp_async" : "bulk"; }
const char* name(Layout l) { return l == Layout::row_major ? "row_major" : "group_major"; }

// One decode plan's grid: N x K weights (NVFP4) split into `splits` K-slices.
struct Case {
  std::int64_t n = 0, k = 0;
  int splits = 1;
};

Case parse_case(const std::string& text) {
  Case c;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%ldx%ldx%d%c", &c.n, &c.k, &c.splits, &tail) != 3)
    throw InvalidArgument(fmt::format("--case '{}' is not NxKxSPLITS (e.g. 16384x6144x3)", text));
  require(c.n >= 64 && c.n % 64 == 0, "--case '{}': N = {} must be a positive multiple of 64", text, c.n);
  require(c.k >= 128 && c.k % 128 == 0, "--case '{}': K = {} must be a positive multiple of 128", text, c.k);
  require(c.splits >= 1 && c.splits <= c.k / 128, "--case '{}': splits = {} must be in 1..K/128", text, c.splits);
  return c;
}

int run(int argc, char** argv) {
  CLI::App app{"decode_stream_probe: cuda-decode's weight stream with no compute, by copy mechanism, "
               "tile layout and ring depth"};
  // cuda-decode's plans at M = 1 on 132 SMs (decode_gemm.cu: 4 CTAs per SM wanted).
  std::vector<std::string> case_texts{"16384x6144x3", "6144x6144x6", "4096x6144x8", "768x6144x24"};
  std::vector<long long> works{0};
  int reps = 50;
  double ceiling_gbs = 0;
  std::string json_path;
  app.add_option("--case", case_texts, "NxKxSPLITS grids (N a multiple of 64, K of 128)");
  app.add_option("--work", works, "clock cycles spun per group and warp (0: the pure stream)");
  app.add_option("--reps", reps, "launches timed per point")->check(CLI::Range(1, 100000));
  app.add_option("--ceiling-gbs", ceiling_gbs, "a read ceiling to print percentages of (GB/s)");
  app.add_option("--json", json_path, "write the results as JSON (replaced if present)");
  CLI11_PARSE(app, argc, argv);
  std::vector<Case> cases;
  for (const std::string& t : case_texts) cases.push_back(parse_case(t));

  int device = 0, sm_major = 0, l2_bytes = 0;
  FP4GEMM_CUDA_CHECK(cudaGetDevice(&device));
  FP4GEMM_CUDA_CHECK(cudaDeviceGetAttribute(&sm_major, cudaDevAttrComputeCapabilityMajor, device));
  FP4GEMM_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  cudaDeviceProp prop{};
  FP4GEMM_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  std::vector<Variant> variants{
      variant<Mechanism::cp_async, Layout::row_major, 4>(),  variant<Mechanism::cp_async, Layout::group_major, 4>(),
      variant<Mechanism::cp_async, Layout::row_major, 8>(),  variant<Mechanism::cp_async, Layout::group_major, 8>(),
  };
  if (sm_major >= 9)
    for (Variant v : {variant<Mechanism::bulk, Layout::row_major, 4>(), variant<Mechanism::bulk, Layout::group_major, 4>(),
                      variant<Mechanism::bulk, Layout::row_major, 8>(), variant<Mechanism::bulk, Layout::group_major, 8>()})
      variants.push_back(v);

  DeviceBuffer<unsigned> sink(1);
  Stream stream;
  nlohmann::json rows = nlohmann::json::array();
  fmt::print("{} (sm_{}{}), L2 {} MB\n{:>6} {:>6} {:>3} {:>6} | {:>8} {:>11} {:>6} | {:>9} {:>8}{}\n", prop.name,
             prop.major, prop.minor, l2_bytes >> 20, "N", "K", "S", "work", "copies", "layout", "stages", "us", "GB/s",
             ceiling_gbs > 0 ? "  % ceiling" : "");
  for (const Case& c : cases) {
    Geometry g;
    g.row_tiles = int(c.n / 16);
    g.k_groups = int(c.k / 128);
    g.groups_per_split = (g.k_groups + c.splits - 1) / c.splits;
    const int splits = (g.k_groups + g.groups_per_split - 1) / g.groups_per_split;
    const std::size_t code_bytes = std::size_t(g.row_tiles) * g.k_groups * kCodeBytes;
    const std::size_t scale_bytes = std::size_t(g.row_tiles) * g.k_groups * kScaleBytes;
    const std::size_t copies = std::max<std::size_t>(2, (4 * std::size_t(l2_bytes)) / (code_bytes + scale_bytes) + 1);
    DeviceBuffer<std::uint8_t> code_pool(copies * code_bytes), scale_pool(copies * scale_bytes);
    code_pool.fill_bytes(0x5A, stream.get());
    scale_pool.fill_bytes(0x3C, stream.get());
    const dim3 grid(unsigned(g.row_tiles / kWarps), unsigned(splits));
    for (long long work : works) {
      g.work = work;
      for (const Variant& v : variants) {
        const int smem = kWarps * v.stages * kStageBytes;
        FP4GEMM_CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(v.kernel),
                                                cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        const auto launch = [&](std::size_t copy) {
          v.kernel<<<grid, kThreads, smem, stream.get()>>>(code_pool.get() + copy * code_bytes,
                                                          scale_pool.get() + copy * scale_bytes, g, sink.get());
          FP4GEMM_CUDA_CHECK_LAUNCH();
        };
        for (std::size_t r = 0; r < copies; ++r) launch(r);  // warm-up: every copy once
        Event start, stop;
        start.record(stream.get());
        for (int r = 0; r < reps; ++r) launch(std::size_t(r) % copies);
        stop.record(stream.get());
        stream.synchronize();
        const double us = 1e3 * stop.elapsed_since(start) / reps;
        const double gbs = double(code_bytes + scale_bytes) / (us * 1e3);
        fmt::print("{:>6} {:>6} {:>3} {:>6} | {:>8} {:>11} {:>6} | {:>9.2f} {:>8.0f}{}\n", c.n, c.k, splits, work,
                   name(v.mechanism), name(v.layout), v.stages, us, gbs,
                   ceiling_gbs > 0 ? fmt::format("  {:>8.1f} %", 100 * gbs / ceiling_gbs) : "");
        rows.push_back({{"n", c.n}, {"k", c.k}, {"splits", splits}, {"work_cycles", work},
                        {"mechanism", name(v.mechanism)}, {"layout", name(v.layout)}, {"stages", v.stages},
                        {"ctas", grid.x * grid.y}, {"bytes", code_bytes + scale_bytes}, {"copies", copies},
                        {"us_per_launch", us}, {"gb_per_s", gbs}});
      }
    }
  }
  if (!json_path.empty()) {
    const nlohmann::json doc{{"gpu", prop.name}, {"reps", reps}, {"rows", rows}};
    write_text_atomically(json_path, doc.dump(1) + "\n", true, "--json");
  }
  return 0;
}

}  // namespace
}  // namespace fp4gemm::cuda

int main(int argc, char** argv) {
  try {
    return fp4gemm::cuda::run(argc, argv);
  } catch (const fp4gemm::Error& e) {
    std::fprintf(stderr, "decode_stream_probe: %s\n", e.what());
    return 1;
  }
}
