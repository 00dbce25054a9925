// EmptyLaunchRun: a GemmRun whose run() is one launch of an empty kernel on its stream, timed
// by the harness to measure the launch overhead a stream or single timing contains
// (measure_launch_overhead, timing.hpp), for the launch-bound verdict (roofline.hpp).
//
// empty_kernel algorithm:
//   1. nothing: one block of one thread that returns at once, so its time is the launch.
#include "bench/sampler.hpp"
#include "cuda/device_buffer.hpp"

namespace fp4gemm {
namespace {

__global__ void empty_kernel() {}

class EmptyLaunchRun final : public GemmRun {
 public:
  void run() override {
    empty_kernel<<<1, 1, 0, stream()>>>();
    FP4GEMM_CUDA_CHECK_LAUNCH();
  }
  void synchronize() override { FP4GEMM_CUDA_CHECK(cudaStreamSynchronize(stream())); }
  void poison_output() override {}
  std::vector<float> output() override { return {}; }  // it computes nothing
  void* cuda_stream() override { return stream(); }
  void bind_cuda_stream(void* caller_stream) override { bound_ = static_cast<cudaStream_t>(caller_stream); }

 private:
  cudaStream_t stream() const { return bound_ ? bound_ : own_.get(); }
  cuda::Stream own_;
  cudaStream_t bound_ = nullptr;
};

}  // namespace

std::unique_ptr<GemmRun> make_empty_launch_run() { return std::make_unique<EmptyLaunchRun>(); }

}  // namespace fp4gemm
