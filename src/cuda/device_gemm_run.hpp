#pragma once
// Device-side operands and the GemmRun base shared by every CUDA backend.
//   DeviceFp4Tensor  an Fp4Tensor's data and scales resident on the GPU (layout unchanged)
//   DeviceGemmRun    owns the output buffer (M x N of out_dtype) and a stream; subclasses
//                    implement run() by enqueueing on stream(), which is the own stream or the
//                    one bound by bind_cuda_stream (a subclass that hands the stream to a
//                    library handle re-binds it in stream_changed()).
#include <cstdint>
#include <cstring>

#include "cuda/device_buffer.hpp"
#include "fp4gemm/backend.hpp"
#include "fp4gemm/codecs.hpp"

namespace fp4gemm::cuda {

// A margin for kernels that read scales as aligned 4-byte words from B's own layout (an aligned
// word may reach past the last scale byte); uploads append that many zero bytes.
inline constexpr std::size_t kScaleReadPastEnd = 8;

struct DeviceFp4Tensor {
  Fp4Format format = Fp4Format::nvfp4;
  ScaleLayout scale_layout = ScaleLayout::linear;
  std::int64_t rows = 0, cols = 0;
  float scale_2 = 1.0f;
  std::int64_t scale_bytes = 0;       // of the layout (padding included), without the tail
  DeviceBuffer<std::uint8_t> data;    // rows x cols/2 as given, or the codes in a kernel's form
  DeviceBuffer<std::uint8_t> scales;  // in scale_layout, then kScaleReadPastEnd zero bytes

  DeviceFp4Tensor() = default;
  explicit DeviceFp4Tensor(const Fp4Tensor& t) : DeviceFp4Tensor(t, t.data) {}
  // `codes`: t's codes in the form a kernel reads them (kernel_operands.hpp, BForm).
  DeviceFp4Tensor(const Fp4Tensor& t, const std::vector<std::uint8_t>& codes)
      : format(t.format), scale_layout(t.scale_layout), rows(t.rows), cols(t.cols),
        scale_2(t.scale_2), scale_bytes(std::int64_t(t.scales.size())),
        data(codes),
        scales(with_read_past_end(t.scales)) {}

 private:
  static std::vector<std::uint8_t> with_read_past_end(std::vector<std::uint8_t> scales) {
    scales.resize(scales.size() + kScaleReadPastEnd, 0);
    return scales;
  }
};

class DeviceGemmRun : public GemmRun {
 public:
  explicit DeviceGemmRun(const GemmProblem& problem)
      : problem_(problem),
        out_(std::size_t(problem.shape.m * problem.shape.n * dtype_bytes(problem.out_dtype))) {}

  void synchronize() override { FP4GEMM_CUDA_CHECK(cudaStreamSynchronize(stream())); }
  // 0xFF bytes are NaN in f32, bf16 and f16 alike.
  void poison_output() override { out_.fill_bytes(0xFF, stream()); }
  std::vector<float> output() override {
    synchronize();  // the download below is not ordered after the (non-blocking) stream's work
    const std::vector<std::uint8_t> raw = out_.download();
    std::vector<float> values(std::size_t(problem_.shape.m * problem_.shape.n));
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (problem_.out_dtype == DType::f32) {
        std::memcpy(&values[i], &raw[4 * i], 4);
      } else {
        const std::uint16_t h = std::uint16_t(raw[2 * i] | (raw[2 * i + 1] << 8));
        values[i] = problem_.out_dtype == DType::bf16 ? bf16_to_float(h) : fp16_to_float(h);
      }
    }
    return values;
  }
  void* cuda_stream() override { return stream(); }
  void bind_cuda_stream(void* caller_stream) final {
    // What prepare() enqueued on this run's own stream (the split-K counters' and status words'
    // clearing) is done before the caller's stream, which is not ordered after it, runs the GEMM.
    // (Not when unbinding, which a destructor may do while a capture is unwinding.)
    if (caller_stream) FP4GEMM_CUDA_CHECK(cudaStreamSynchronize(stream()));
    bound_ = static_cast<cudaStream_t>(caller_stream);
    stream_changed();
  }

 protected:
  cudaStream_t stream() const { return bound_ ? bound_ : stream_.get(); }
  // Called after bind_cuda_stream: a subclass whose library handle holds the stream re-binds it.
  virtual void stream_changed() {}
  void* output_ptr() const { return out_.get(); }
  const GemmProblem& problem() const { return problem_; }

 private:
  GemmProblem problem_;
  Stream stream_;
  cudaStream_t bound_ = nullptr;  // the caller's stream while bound, else nullptr
  DeviceBuffer<std::uint8_t> out_;
};

}  // namespace fp4gemm::cuda
