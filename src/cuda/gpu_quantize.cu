// Host side of GPU quantization (gpu_quantize.hpp): argument checks, kernel choice by input dtype
// and format, launch geometry, and the host round trip of quantize_on_gpu.
#include "cuda/gpu_quantize.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "cuda/cuda_check.hpp"
#include "cuda/dependent_launch.cuh"
#include "cuda/gpu_requirement.hpp"
#include "cuda/quantize_kernel.cuh"
#include "fp4gemm/error.hpp"
#include "fp4gemm/layout.hpp"

namespace fp4gemm::cuda {
namespace {

// Grid cap of quantize_kernel: 65536 blocks x 256 threads = 16.7M lanes, one pass over
// 16384 x 6144 NVFP4 (6.3M lanes, one per scale block); larger tensors loop grid-stride.
constexpr std::int64_t kMaxQuantizeBlocks = 65536;
// amax_kernel runs one wave (256-thread blocks, 2048 threads per SM): one atomicMax per block.
constexpr int kAmaxBlocksPerSm = 2048 / kQuantizeThreads;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Preconditions shared by both passes (the kernels' keys and 16-byte loads rely on them).
void require_device_input(const void* x, std::int64_t rows, std::int64_t cols, int block) {
  require(rows >= 1 && rows < kStatusIndexLimit, "rows = {} must be in [1, 2^31)", rows);
  require(cols >= 1 && cols < kStatusIndexLimit && cols % block == 0,
          "K = {} must be a positive multiple of {} below 2^31", cols, block);
  require(reinterpret_cast<std::uintptr_t>(x) % 16 == 0,
          "the device input must be 16-byte aligned for vector loads");
}

// The elements per lane of quantize_kernel: 4 (a block spread over 4 / 8 lanes) where even then
// the lanes fit one wave of the GPU (kSpreadMaxThreadsPerSm threads per SM), else 16. Small
// tensors (decode activations) are bound by one lane's latency, large ones by the work, which the
// spread adds to (each lane computes its block's scale).
constexpr std::int64_t kSpreadMaxThreadsPerSm = 2048;
int lane_width_by_size(std::int64_t blocks, int block, std::int64_t sms) {
  const std::int64_t spread_lanes = blocks * (block / kSpreadElementsPerLane);
  return spread_lanes <= sms * kSpreadMaxThreadsPerSm ? kSpreadElementsPerLane : kElementsPerLane;
}

template <Fp4Format F, int E>
void (*quantize_kernel_for(DType dtype))(QuantizeArgs) {
  return dtype == DType::f32    ? quantize_kernel<DType::f32, F, E>
         : dtype == DType::bf16 ? quantize_kernel<DType::bf16, F, E>
                                : quantize_kernel<DType::f16, F, E>;
}

void (*quantize_kernel_for(Fp4Format format, DType dtype, int elements_per_lane))(QuantizeArgs) {
  const bool spread = elements_per_lane == kSpreadElementsPerLane;
  if (format == Fp4Format::nvfp4)
    return spread ? quantize_kernel_for<Fp4Format::nvfp4, kSpreadElementsPerLane>(dtype)
                  : quantize_kernel_for<Fp4Format::nvfp4, kElementsPerLane>(dtype);
  return spread ? quantize_kernel_for<Fp4Format::mxfp4, kSpreadElementsPerLane>(dtype)
                : quantize_kernel_for<Fp4Format::mxfp4, kElementsPerLane>(dtype);
}

void (*amax_kernel_for(DType dtype))(const void*, std::int64_t, std::int64_t,
                                     QuantizeStatusWords*) {
  return dtype == DType::f32    ? amax_kernel<DType::f32>
         : dtype == DType::bf16 ? amax_kernel<DType::bf16>
                                : amax_kernel<DType::f16>;
}

void throw_if_set(unsigned long long first_non_finite) {
  if (first_non_finite == kNoNonFinite) return;
  throw_non_finite_input(non_finite_kind(first_non_finite), non_finite_row(first_non_finite),
                         non_finite_column(first_non_finite));
}

}  // namespace

DeviceBuffer<std::uint8_t> upload_matrix(const HostMatrix& x, cudaStream_t stream) {
  const bool f32 = x.dtype == DType::f32;
  const std::size_t stored = f32 ? x.f32.size() : x.half.size();
  require(std::int64_t(stored) == x.rows * x.cols, "input holds {} values; {} x {} needs {}",
          stored, x.rows, x.cols, x.rows * x.cols);
  const void* host =
      f32 ? static_cast<const void*>(x.f32.data()) : static_cast<const void*>(x.half.data());
  DeviceBuffer<std::uint8_t> input(std::size_t(x.rows * x.cols * dtype_bytes(x.dtype)));
  FP4GEMM_CUDA_CHECK(
      cudaMemcpyAsync(input.get(), host, input.bytes(), cudaMemcpyHostToDevice, stream));
  return input;
}

void QuantizeStatus::clear(cudaStream_t stream) {
  QuantizeStatusWords* w = words_.get();
  FP4GEMM_CUDA_CHECK(
      cudaMemsetAsync(&w->first_non_finite, 0xFF, sizeof w->first_non_finite, stream));
  FP4GEMM_CUDA_CHECK(cudaMemsetAsync(&w->amax_bits, 0, sizeof w->amax_bits, stream));
}

QuantizeStatusWords QuantizeStatus::read(cudaStream_t stream) const {
  QuantizeStatusWords host{};
  FP4GEMM_CUDA_CHECK(
      cudaMemcpyAsync(&host, words_.get(), sizeof host, cudaMemcpyDeviceToHost, stream));
  FP4GEMM_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host;
}

void QuantizeStatus::throw_if_non_finite(cudaStream_t stream) const {
  throw_if_set(read(stream).first_non_finite);
}

DeviceFp4Tensor make_device_fp4_tensor(Fp4Format format, ScaleLayout layout, std::int64_t rows,
                                       std::int64_t cols) {
  DeviceFp4Tensor t;
  t.format = format;
  t.scale_layout = layout;
  t.rows = rows;
  t.cols = cols;
  t.scale_bytes = scale_bytes(layout, rows, cols / block_size(format));
  t.data = DeviceBuffer<std::uint8_t>(std::size_t(rows * cols / 2));
  t.scales = DeviceBuffer<std::uint8_t>(std::size_t(t.scale_bytes) + kScaleReadPastEnd);
  return t;
}

Fp4Tensor download_fp4_tensor(const DeviceFp4Tensor& t) {
  Fp4Tensor host;
  host.format = t.format;
  host.scale_layout = t.scale_layout;
  host.rows = t.rows;
  host.cols = t.cols;
  host.scale_2 = t.scale_2;
  host.data = t.data.download();
  host.scales = t.scales.download();
  host.scales.resize(std::size_t(t.scale_bytes));  // without the read-past-end tail
  return host;
}

float measure_scale_2_on_device(const void* x, DType dtype, std::int64_t rows, std::int64_t cols,
                                QuantizeStatus& status, cudaStream_t stream) {
  require_device_input(x, rows, cols, block_size(Fp4Format::nvfp4));
  QuantizeStatusWords* words = status.device_words();
  FP4GEMM_CUDA_CHECK(cudaMemsetAsync(&words->amax_bits, 0, sizeof words->amax_bits, stream));
  int device = 0, sms = 0;
  FP4GEMM_CUDA_CHECK(cudaGetDevice(&device));
  FP4GEMM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const std::int64_t groups = rows * cols / kElementsPerLane;
  const std::int64_t blocks =
      std::min(ceil_div(groups, kQuantizeThreads), std::int64_t(sms) * kAmaxBlocksPerSm);
  amax_kernel_for(dtype)<<<unsigned(blocks), kQuantizeThreads, 0, stream>>>(x, groups, cols, words);
  FP4GEMM_CUDA_CHECK_LAUNCH();
  const QuantizeStatusWords result = status.read(stream);
  throw_if_set(result.first_non_finite);
  return nvfp4_scale_2_from_amax(float_from_bits(result.amax_bits));
}

void require_quantizable(const void* x, std::int64_t rows, std::int64_t cols, Fp4Format format, float scale_2) {
  require_device_input(x, rows, cols, block_size(format));
  if (format == Fp4Format::nvfp4)
    require(std::isfinite(scale_2) && scale_2 > 0.0f, "scale_2 = {} must be positive and finite",
            scale_2);
  else
    require(scale_2 == 1.0f, "scale_2 = {}: MXFP4 has no tensor scale (pass 1)", scale_2);
}

Verdict gpu_quantizable_verdict(const GemmProblem& problem) {
  const GemmShape& s = problem.shape;
  if (problem.mode == Mode::w4a4 && (s.m >= kStatusIndexLimit || s.k >= kStatusIndexLimit))
    return Verdict::no(fmt::format("M x K = {} x {}: w4a4 quantizes the activations on the GPU in "
                                   "every call, which takes M and K below 2^31", s.m, s.k));
  return Verdict::yes();
}

void quantize_on_device(const void* x, DType dtype, std::int64_t rows, std::int64_t cols,
                        const QuantizeOptions& options, float scale_2, DeviceFp4Tensor& out,
                        QuantizeStatus& status, cudaStream_t stream, std::uint16_t* block_values,
                        int elements_per_lane) {
  const Fp4Format format = options.format;
  const int block = block_size(format);
  require_quantizable(x, rows, cols, format, scale_2);
  require(out.format == format && out.scale_layout == options.scale_layout && out.rows == rows &&
              out.cols == cols,
          "quantize_on_device: the output is {} x {} {} ({} scales), the request {} x {} {} ({})",
          out.rows, out.cols, to_string(out.format), to_string(out.scale_layout), rows, cols,
          to_string(format), to_string(options.scale_layout));
  const std::int64_t scale_cols = cols / block;
  require(out.data.size() == std::size_t(rows * cols / 2) &&
              out.scale_bytes == scale_bytes(options.scale_layout, rows, scale_cols) &&
              out.scales.size() >= std::size_t(out.scale_bytes),
          "quantize_on_device: output buffers of {} data and {} scale bytes do not fit {} x {} {}",
          out.data.size(), out.scales.size(), rows, cols, to_string(format));
  const bool swizzled = options.scale_layout == ScaleLayout::swizzled;
  QuantizeArgs args{};
  args.x = x;
  args.rows = rows;
  args.cols = cols;
  args.layout = options.scale_layout;
  args.padded_rows = swizzled ? round_up(rows, 128) : rows;
  args.padded_scale_cols = swizzled ? round_up(scale_cols, 4) : scale_cols;
  args.scale_2 = scale_2;
  args.data = out.data.get();
  args.scales = out.scales.get();
  args.status = status.device_words();
  args.block_values = block_values;
  out.scale_2 = scale_2;

  const std::int64_t scale_blocks = args.padded_rows * args.padded_scale_cols;
  require(elements_per_lane == 0 || elements_per_lane == kElementsPerLane ||
              elements_per_lane == kSpreadElementsPerLane,
          "elements_per_lane = {} must be 0 (the rule), {} or {}", elements_per_lane, kElementsPerLane,
          kSpreadElementsPerLane);
  const int per_lane = elements_per_lane != 0
                           ? elements_per_lane
                           : lane_width_by_size(scale_blocks, block, current_device_attribute(cudaDevAttrMultiProcessorCount));
  const std::int64_t lanes = scale_blocks * (block / per_lane);
  const std::int64_t blocks = std::min(ceil_div(lanes, kQuantizeThreads), kMaxQuantizeBlocks);
  launch_kernel(quantize_kernel_for(format, dtype, per_lane), dim3(unsigned(blocks)), kQuantizeThreads, 0,
                dependent_launch_supported(), stream, args);
}

Fp4Tensor quantize_on_gpu(const HostMatrix& x, const QuantizeOptions& options) {
  // Shape and option checks with the CPU quantizer's own words, skipping its host pass over x:
  // with a tensor scale given, resolve_scale_2 validates and returns without reading the data.
  const bool measured =
      options.format == Fp4Format::nvfp4 && !options.scale_2 && !options.global_sf;
  QuantizeOptions checked = options;
  if (measured) checked.scale_2 = 1.0f;
  const float given_scale_2 = resolve_scale_2(x, checked);

  Stream stream;
  QuantizeStatus status(stream.get());
  const DeviceBuffer<std::uint8_t> input = upload_matrix(x, stream.get());
  const float scale_2 = measured ? measure_scale_2_on_device(input.get(), x.dtype, x.rows, x.cols,
                                                             status, stream.get())
                                 : given_scale_2;
  DeviceFp4Tensor out =
      make_device_fp4_tensor(options.format, options.scale_layout, x.rows, x.cols);
  quantize_on_device(input.get(), x.dtype, x.rows, x.cols, options, scale_2, out, status,
                     stream.get());
  status.throw_if_non_finite(stream.get());
  return download_fp4_tensor(out);
}

}  // namespace fp4gemm::cuda
