// The read-bandwidth kernel and the copy measurement of `fp4gemm ceilings`.
//
// read_kernel, over `count` 16-byte vectors (uint4), on every SM at full occupancy:
//   1. Thread t of T (all threads of the grid) owns vectors t, t + T, t + 2T, ...: a warp's 32
//      loads are 512 contiguous bytes (coalesced), and the whole grid sweeps the buffer once.
//   2. The main loop has kUnroll = 8 independent 16-byte loads per iteration. ptxas (CUDA 13,
//      sm_90a) keeps the kernel at 32 registers, i.e. 2048 resident threads per SM, and issues
//      4 loads before it consumes the first (the others as registers free up; checked in the
//      SASS): >= 64 bytes in flight per thread, >= 128 KiB per SM, several times the
//      bandwidth-delay product (H200: 4.8 TB/s x ~1 us / 132 SMs ~ 36 KB per SM).
//   3. Every loaded word is XORed into a per-thread accumulator; a warp XOR-reduction and one
//      atomicXor per warp fold it into *sink, so the result depends on every byte and no load
//      can be removed by the compiler.
//   4. Fewer than kUnroll strides left: a plain strided loop takes the tail.
// The buffer holds word j = j (fill_kernel), so after one call *sink must be the XOR of
// 0 .. 4*count-1, which has a closed form: a check that the kernel read each word exactly once.
// Limits: count * 4 < 2^32 (the word values are 32-bit): buffers below 16 GiB.
#include <cuda_runtime.h>

#include <fmt/format.h>

#include "cuda/best_time.hpp"
#include "cuda/bandwidth_probe.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device_buffer.hpp"
#include "fp4gemm/error.hpp"

namespace fp4gemm::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kUnroll = 8;

__global__ void __launch_bounds__(kThreads) fill_kernel(unsigned* words, std::size_t count) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t j = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; j < count; j += stride)
    words[j] = unsigned(j);
}

__global__ void __launch_bounds__(kThreads)
    read_kernel(const uint4* __restrict__ data, std::size_t count, unsigned* sink) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned acc = 0;
  for (; i + (kUnroll - 1) * stride < count; i += kUnroll * stride) {
    uint4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = data[i + u * stride];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (; i < count; i += stride) {
    const uint4 v = data[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  acc = __reduce_xor_sync(0xffffffffu, acc);
  if (threadIdx.x % 32 == 0) atomicXor(sink, acc);
}

// 0 ^ 1 ^ ... ^ n, by the period-4 pattern of prefix XORs.
unsigned xor_upto(unsigned n) {
  switch (n % 4) {
    case 0: return n;
    case 1: return 1;
    case 2: return n + 1;
    default: return 0;
  }
}

// Blocks that fill every SM at the occupancy `kernel` allows with kThreads threads.
template <typename Kernel>
int full_grid(Kernel kernel) {
  int device = 0, sms = 0, per_sm = 0;
  FP4GEMM_CUDA_CHECK(cudaGetDevice(&device));
  FP4GEMM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  FP4GEMM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, 0));
  return sms * per_sm;
}

double gib(double bytes) { return bytes / double(1ull << 30); }

}  // namespace

BandwidthMeasurement measure_read_bandwidth(std::size_t bytes, int warmup, int repetitions) {
  require(bytes >= 16 && bytes % 16 == 0 && bytes / 4 < (std::size_t(1) << 32),
          "read bandwidth buffer = {} bytes must be a positive multiple of 16 below 16 GiB", bytes);
  const std::size_t count = bytes / 16;
  DeviceBuffer<uint4> data(count);
  DeviceBuffer<unsigned> sink(1);
  Stream stream;
  const int blocks = full_grid(read_kernel);
  fill_kernel<<<full_grid(fill_kernel), kThreads, 0, stream.get()>>>(
      reinterpret_cast<unsigned*>(data.get()), count * 4);
  FP4GEMM_CUDA_CHECK_LAUNCH();
  sink.fill_bytes(0, stream.get());
  auto call = [&] {
    read_kernel<<<blocks, kThreads, 0, stream.get()>>>(data.get(), count, sink.get());
    FP4GEMM_CUDA_CHECK_LAUNCH();
  };
  call();
  stream.synchronize();
  const unsigned expected = xor_upto(unsigned(count * 4 - 1));
  const unsigned got = sink.download()[0];
  if (got != expected)
    throw Error(fmt::format("read bandwidth kernel: checksum {:#010x}, expected {:#010x}: it did not "
                            "read every word of the buffer exactly once", got, expected));
  const double best = best_seconds(stream.get(), warmup, repetitions, call);
  return {double(bytes), best,
          fmt::format("read-only kernel, 16-byte loads unrolled x {}, {} blocks x {} threads, {:.1f} "
                      "GiB, best of {}",
                      kUnroll, blocks, kThreads, gib(double(bytes)), repetitions)};
}

BandwidthMeasurement measure_copy_bandwidth(std::size_t bytes, int warmup, int repetitions) {
  require(bytes > 0, "copy bandwidth buffer must not be empty");
  DeviceBuffer<std::uint8_t> from(bytes), to(bytes);
  from.fill_bytes(0x5a);
  Stream stream;
  auto call = [&] {
    FP4GEMM_CUDA_CHECK(cudaMemcpyAsync(to.get(), from.get(), bytes, cudaMemcpyDeviceToDevice, stream.get()));
  };
  const double best = best_seconds(stream.get(), warmup, repetitions, call);
  return {2.0 * double(bytes), best,
          fmt::format("cudaMemcpyAsync device to device, {:.1f} GiB; read + write bytes counted, "
                      "best of {}", gib(double(bytes)), repetitions)};
}

}  // namespace fp4gemm::cuda
