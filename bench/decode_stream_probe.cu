// decode_stream_probe: how fast this GPU streams a decode GEMM's weight bytes in cuda-decode's
// access pattern when nothing is computed on them. cuda-decode v10's ablation put the weight
// stream of 1 x 16384 x 6144 at 17.3 us (3.27 TB/s, 71 % of the 4605 GB/s that `fp4gemm
// ceilings` reads with a grid-wide sweep; src/cuda/notes_decode.md); this program separates the
// access pattern and the copy mechanism from the kernel's dequantization and MMAs.
//
// stream_kernel<kMechanism, kLayout, kStages> runs on cuda-decode's own grid: plan_decode_gemm's
// plan for M = 1 (NVFP4, w4a16) on this GPU, N-tiles x K-slices of kWarps warps, warp w of CTA
// (tile, slice) streaming the 16-row tile kWarps * tile + w over the slice's groups.
//  1. A group of a 16-row tile is a code tile (decode::kCodeStageBytes) and a scale tile
//     (decode::scale_tile_bytes) in two arrays, as cuda-decode's prepare() lays them out. Tile
//     (row tile rt, group i) sits at index rt * k_groups + i (row-major: cuda-decode's order, a
//     warp's groups contiguous) or i * row_tiles + rt (group-major: at each step the warps of
//     the grid read adjacent tiles).
//  2. Each warp has a kStages-deep ring in shared memory holding kStages - 1 groups in flight.
//     cp_async fills it with decode::copy_group, the kernel's own copies: each lane issues two
//     16-byte cp.async of codes, the scale tile's lanes one of scales, and waits with
//     cp.async.wait_group plus __syncwarp. bulk fills it with two cp.async.bulk from lane 0 onto
//     the stage's mbarrier (sm_90+).
//  3. To consume a group, each lane reads its slots of the stage (decode::code_slot) and its scale
//     word and folds them into an XOR accumulator, then spins `work` clock cycles. The spin
//     stands in for the dequantization and MMAs; work = 0 is the pure stream.
//  4. A warp XOR-reduction and one atomicXor into *sink keep every load live.
// Timing, as `fp4gemm bench` times a decode chain: `reps` launches, each on the next of several
// copies of the weights (together at least 4x the L2, so every launch reads from DRAM), captured
// into one CUDA graph. The graph is replayed `trials` times with cudaEvents around each replay,
// and the best replay divided by reps gives the time per launch. An empty kernel on the same grid
// and shared memory is timed the same way; "net" is the difference (the launch, CTA start and
// tail that are not stream), and GB/s counts code and scale bytes over both times.
#include <CLI/CLI.hpp>
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cuda/cuda_check.hpp"
#include "cuda/decode_gemm.cuh"
#include "cuda/decode_gemm.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/sm90_primitives.cuh"
#include "fp4gemm/error.hpp"
#include "fp4gemm/io.hpp"

namespace fp4gemm::cuda {
namespace {

enum class Mechanism { cp_async, bulk };
enum class Layout { row_major, group_major };

// cuda-decode's M = 1 CTAs: 4 warps of 16 rows.
constexpr int kWarps = decode::kNarrowWarps;
constexpr int kThreads = decode::threads_of(kWarps);
constexpr int kRowsPerCta = decode::rows_per_cta(kWarps);
constexpr int kCodeBytes = decode::kCodeStageBytes;
constexpr int kScaleBytes = decode::scale_tile_bytes(false);
constexpr int kStageBytes = decode::stage_bytes(false);

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
      decode::LaneStream s;
      s.codes = codes + t * kCodeBytes + lane * decode::kCodeSlotBytes;
      s.scales = scales + t * kScaleBytes + 16 * lane;
      s.copies = true;
      s.copies_scales = 16 * lane < kScaleBytes;
      s.scale_step = kScaleBytes;
      decode::copy_group(s, dst, lane);
    } else if (lane == 0) {
      sm90::mbarrier_arrive_expect_tx(&full[warp][stage], kStageBytes);
      sm90::bulk_load(dst, codes + t * kCodeBytes, kCodeBytes, &full[warp][stage]);
      sm90::bulk_load(decode::scale_tile_of(dst), scales + t * kScaleBytes, kScaleBytes, &full[warp][stage]);
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
    std::uint8_t* st = ring + stage * kStageBytes;
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const uint4 c = *reinterpret_cast<const uint4*>(decode::code_slot(st, r, lane));
      acc ^= c.x ^ c.y ^ c.z ^ c.w;
    }
    acc ^= *reinterpret_cast<const unsigned*>(decode::scale_tile_of(st) + 4 * lane);
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

// The launch cost of a grid: no work at all.
__global__ void __launch_bounds__(kThreads)
    empty_kernel(const std::uint8_t*, const std::uint8_t*, Geometry, unsigned*) {}

using Kernel = void (*)(const std::uint8_t*, const std::uint8_t*, Geometry, unsigned*);

struct Variant {
  const char* mechanism;
  const char* layout;
  int stages;
  Kernel kernel;
};

template <Mechanism M, Layout L, int S>
Variant variant() {
  return {M == Mechanism::cp_async ? "cp_async" : "bulk", L == Layout::row_major ? "row_major" : "group_major", S,
          stream_kernel<M, L, S>};
}

// The best time per launch (us) of `reps` launches of `kernel` on the rotating copies, captured
// into one graph and replayed `trials` times.
double best_us_per_launch(Kernel kernel, dim3 grid, int smem, const Geometry& g, const std::uint8_t* code_pool,
                          const std::uint8_t* scale_pool, std::size_t code_bytes, std::size_t scale_bytes,
                          std::size_t copies, unsigned* sink, int reps, int trials) {
  FP4GEMM_CUDA_CHECK(
      cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  Stream stream;
  cudaGraph_t graph = nullptr;
  FP4GEMM_CUDA_CHECK(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal));
  for (int r = 0; r < reps; ++r) {
    const std::size_t copy = std::size_t(r) % copies;
    kernel<<<grid, kThreads, smem, stream.get()>>>(code_pool + copy * code_bytes,
                                                           scale_pool + copy * scale_bytes, g, sink);
  }
  FP4GEMM_CUDA_CHECK(cudaStreamEndCapture(stream.get(), &graph));
  cudaGraphExec_t exec = nullptr;
  const cudaError_t instantiated = cudaGraphInstantiate(&exec, graph, 0);
  FP4GEMM_CUDA_CHECK_NOEXCEPT(cudaGraphDestroy(graph));
  FP4GEMM_CUDA_CHECK(instantiated);
  double best = std::numeric_limits<double>::infinity();
  try {
    FP4GEMM_CUDA_CHECK(cudaGraphLaunch(exec, stream.get()));  // warm-up
    for (int t = 0; t < trials; ++t) {
      Event start, stop;
      start.record(stream.get());
      FP4GEMM_CUDA_CHECK(cudaGraphLaunch(exec, stream.get()));
      stop.record(stream.get());
      stream.synchronize();
      best = std::min(best, 1e3 * double(stop.elapsed_since(start)) / reps);
    }
  } catch (...) {
    FP4GEMM_CUDA_CHECK_NOEXCEPT(cudaGraphExecDestroy(exec));
    throw;
  }
  FP4GEMM_CUDA_CHECK(cudaGraphExecDestroy(exec));
  return best;
}

GemmShape parse_shape(const std::string& text) {
  long long n = 0, k = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%lldx%lld%c", &n, &k, &tail) != 2)
    throw InvalidArgument(fmt::format("--shape '{}' is not NxK (e.g. 16384x6144)", text));
  require(n > 0 && n % kRowsPerCta == 0 && k > 0 && k % decode::kGroupK == 0,
          "--shape '{}': N must be a positive multiple of {} and K of {} (whole tiles)", text, kRowsPerCta,
          decode::kGroupK);
  return {1, n, k};
}

int run(int argc, char** argv) {
  CLI::App app{"decode_stream_probe: cuda-decode's weight stream at M = 1 with no compute, by copy "
               "mechanism, tile layout and ring depth"};
  std::vector<std::string> shape_texts{"16384x6144", "6144x6144", "4096x6144", "768x6144"};
  std::vector<long long> works{0};
  int reps = 20, trials = 5;
  double ceiling_gbs = 0;
  std::string json_path;
  app.add_option("--shape", shape_texts, "NxK weights (NVFP4; cuda-decode's M = 1 plan on this GPU)");
  app.add_option("--work", works, "clock cycles spun per group and warp (0: the pure stream)")
      ->check(CLI::Range(0LL, 100000000LL));
  app.add_option("--reps", reps, "launches per graph")->check(CLI::Range(1, 10000));
  app.add_option("--trials", trials, "graph replays, the best one kept")->check(CLI::Range(1, 1000));
  app.add_option("--ceiling-gbs", ceiling_gbs, "a read ceiling to print percentages of (GB/s)")
      ->check(CLI::Range(0.0, 1e9));
  app.add_option("--json", json_path, "write the results as JSON (replaced if present)");
  CLI11_PARSE(app, argc, argv);
  std::vector<GemmShape> shapes;
  for (const std::string& text : shape_texts) shapes.push_back(parse_shape(text));

  int device = 0, l2_bytes = 0;
  FP4GEMM_CUDA_CHECK(cudaGetDevice(&device));
  FP4GEMM_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  cudaDeviceProp prop{};
  FP4GEMM_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  std::vector<Variant> variants{
      variant<Mechanism::cp_async, Layout::row_major, decode::kStages>(),
      variant<Mechanism::cp_async, Layout::group_major, decode::kStages>(),
      variant<Mechanism::cp_async, Layout::row_major, 8>(),
      variant<Mechanism::cp_async, Layout::group_major, 8>(),
  };
  if (prop.major >= 9)
    for (const Variant& v : {variant<Mechanism::bulk, Layout::row_major, decode::kStages>(),
                             variant<Mechanism::bulk, Layout::group_major, decode::kStages>(),
                             variant<Mechanism::bulk, Layout::row_major, 8>(),
                             variant<Mechanism::bulk, Layout::group_major, 8>()})
      variants.push_back(v);

  DeviceBuffer<unsigned> sink(1);
  nlohmann::json rows = nlohmann::json::array();
  const std::string percent_header = ceiling_gbs > 0 ? "  % ceil (net)" : "";
  fmt::print("{} (sm_{}{}), L2 {} MB; best of {} graph replays of {} launches\n", prop.name, prop.major, prop.minor,
             l2_bytes >> 20, trials, reps);
  fmt::print("{:>6} {:>6} {:>9} {:>5} | {:>8} {:>11} {:>6} | {:>8} {:>8} {:>7} {:>7}{}\n", "N", "K", "CTAs", "work",
             "copies", "layout", "stages", "us", "net us", "GB/s", "net", percent_header);
  for (const GemmShape& shape : shapes) {
    const DecodePlan plan =
        plan_decode_gemm({shape, Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::linear, DType::bf16}, 1,
                         {SplitSums::global});
    Geometry g;
    g.row_tiles = int(shape.n / 16);
    g.k_groups = plan.k_groups;
    g.groups_per_split = plan.groups_per_split;
    const std::size_t code_bytes = std::size_t(g.row_tiles) * g.k_groups * kCodeBytes;
    const std::size_t scale_bytes = std::size_t(g.row_tiles) * g.k_groups * kScaleBytes;
    const std::size_t copies = std::max<std::size_t>(2, 4 * std::size_t(l2_bytes) / (code_bytes + scale_bytes) + 1);
    DeviceBuffer<std::uint8_t> code_pool(copies * code_bytes), scale_pool(copies * scale_bytes);
    code_pool.fill_bytes(0x5A);
    scale_pool.fill_bytes(0x3C);
    FP4GEMM_CUDA_CHECK(cudaDeviceSynchronize());
    const dim3 grid(unsigned(plan.tiles_n), unsigned(plan.splits));
    const double bytes = double(code_bytes + scale_bytes);
    for (long long work : works) {
      g.work = work;
      for (const Variant& v : variants) {
        const int smem = kWarps * v.stages * kStageBytes;
        const auto time = [&](Kernel kernel) {
          return best_us_per_launch(kernel, grid, smem, g, code_pool.get(), scale_pool.get(), code_bytes, scale_bytes,
                                    copies, sink.get(), reps, trials);
        };
        const double us = time(v.kernel), empty_us = time(empty_kernel), net_us = us - empty_us;
        const double gbs = bytes / (us * 1e3), net_gbs = bytes / (net_us * 1e3);
        fmt::print("{:>6} {:>6} {:>9} {:>5} | {:>8} {:>11} {:>6} | {:>8.2f} {:>8.2f} {:>7.0f} {:>7.0f}{}\n", shape.n,
                   shape.k, fmt::format("{}x{}", grid.x, grid.y), work, v.mechanism, v.layout, v.stages, us, net_us,
                   gbs, net_gbs,
                   ceiling_gbs > 0 ? fmt::format("  {:>5.1f} ({:>5.1f})", 100 * gbs / ceiling_gbs,
                                                 100 * net_gbs / ceiling_gbs)
                                   : "");
        rows.push_back({{"n", shape.n}, {"k", shape.k}, {"tiles_n", grid.x}, {"splits", grid.y},
                        {"work_cycles", work}, {"mechanism", v.mechanism}, {"layout", v.layout},
                        {"stages", v.stages}, {"bytes", code_bytes + scale_bytes}, {"copies", copies},
                        {"us_per_launch", us}, {"empty_us_per_launch", empty_us}, {"gb_per_s", gbs},
                        {"net_gb_per_s", net_gbs}});
      }
    }
  }
  if (!json_path.empty()) {
    const nlohmann::json doc{{"gpu", prop.name}, {"reps", reps}, {"trials", trials}, {"rows", rows}};
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
