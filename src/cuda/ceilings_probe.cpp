// measure_ceilings (bench/ceilings_probe.hpp) in a CUDA build: bandwidth through
// cuda/bandwidth_probe.cu, tensor throughput through the cuBLAS/cuBLASLt baseline backends.
#include "bench/ceilings_probe.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "cuda/best_time.hpp"
#include "cuda/bandwidth_probe.hpp"
#include "fp4gemm/backend.hpp"
#include "fp4gemm/error.hpp"

namespace fp4gemm {
namespace {

constexpr std::uint64_t kSeed = 1;

// One tensor path: the backend that computes on it, the least compute capability that has it,
// the mode its operands come in, and how it computes (for the method line).
struct TensorPath {
  const char* backend;
  int min_sm;
  Mode mode;
  const char* kind;   // "FP8"
  const char* how;    // "cuBLASLt, E4M3 inputs, FP32 accumulate"
};

constexpr TensorPath kBf16{"cublas-bf16", 80, Mode::w4a16, "BF16", "cublasGemmEx, BF16 inputs, FP32 accumulate"};
constexpr TensorPath kFp8{"cublaslt-fp8", 89, Mode::w4a16, "FP8", "cuBLASLt, E4M3 inputs, FP32 accumulate"};
constexpr TensorPath kFp4{"cublaslt-nvfp4", 100, Mode::w4a4, "FP4",
                          "cuBLASLt, NVFP4 inputs (E2M1, E4M3 scales per 16)"};

CeilingMeasurement measure_tensor(const TensorPath& path, const GpuInfo& gpu,
                                  const CeilingsProbeOptions& options) {
  const int sm = gpu.sm_major * 10 + gpu.sm_minor;
  if (sm < path.min_sm) return {0, fmt::format("none: no {} tensor cores (sm_{})", path.kind, sm)};
  const Backend& backend = find_backend(path.backend);
  if (const Verdict v = backend.availability(); !v)
    return {0, fmt::format("not measured: {} is not available ({})", path.backend, v.reason)};
  const std::int64_t n = options.gemm_size;
  const GemmProblem problem{{n, n, n}, path.mode, Fp4Format::nvfp4, ScaleLayout::linear, DType::bf16};
  try {
    const auto run = backend.prepare(random_operands(problem, kSeed));
    const double best = cuda::best_seconds(static_cast<cudaStream_t>(run->cuda_stream()), options.warmup,
                                     options.repetitions, [&] { run->run(); });
    return {problem.shape.flops() / best * 1e-12,
            fmt::format("{} ({}), {}x{}x{} -> bf16, best of {}", path.backend, path.how, n, n, n,
                        options.repetitions)};
  } catch (const Error& e) {
    return {0, fmt::format("not measured: {}", e.what())};
  }
}

// CeilingsProbeOptions::read_bytes = 0.
std::size_t default_read_bytes(const GpuInfo& gpu) {
  const double quarter = gpu.memory_gib * double(1ull << 30) / 4;
  const double wanted = std::max(double(2ull << 30), 8.0 * gpu.l2_bytes);
  return std::size_t(std::min(wanted, quarter)) / 16 * 16;
}

}  // namespace

MeasuredCeilings measure_ceilings(const GpuInfo& gpu, const CeilingsKey& key,
                                  const CeilingsProbeOptions& options) {
  require(options.gemm_size > 0 && options.gemm_size % 128 == 0,
          "--gemm-size = {} must be a positive multiple of 128", options.gemm_size);
  require(options.repetitions >= 1, "--repetitions = {} must be at least 1", options.repetitions);
  MeasuredCeilings m;
  m.key = key;
  m.measured_at = utc_timestamp_now();
  const std::size_t read_bytes = options.read_bytes ? options.read_bytes : default_read_bytes(gpu);
  const cuda::BandwidthMeasurement read =
      cuda::measure_read_bandwidth(read_bytes, options.warmup, options.repetitions);
  m.read_gbps = {read.gbps(), read.method};
  const cuda::BandwidthMeasurement copy =
      cuda::measure_copy_bandwidth(read_bytes / 2, options.warmup, options.repetitions);
  m.copy_gbps = {copy.gbps(), copy.method};
  m.bf16_tflops = measure_tensor(kBf16, gpu, options);
  m.fp8_tflops = measure_tensor(kFp8, gpu, options);
  m.fp4_tflops = measure_tensor(kFp4, gpu, options);
  return m;
}

}  // namespace fp4gemm
