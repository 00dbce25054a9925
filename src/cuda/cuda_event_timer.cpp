// CUDA-event IntervalTimer: events recorded on the GPU run's stream around the timed calls.
#include "bench/interval_timer.hpp"
#include "cuda/device_buffer.hpp"

namespace fp4gemm {
namespace {

class CudaEventTimer final : public IntervalTimer {
 public:
  explicit CudaEventTimer(cudaStream_t stream) : stream_(stream) {}
  const char* method() const override { return "cuda-events"; }
  void start() override { start_.record(stream_); }
  double stop_seconds() override {
    stop_.record(stream_);
    FP4GEMM_CUDA_CHECK(cudaEventSynchronize(stop_.get()));
    return double(stop_.elapsed_since(start_)) * 1e-3;
  }

 private:
  cudaStream_t stream_;
  cuda::Event start_, stop_;
};

}  // namespace

std::unique_ptr<IntervalTimer> make_cuda_event_timer(void* cuda_stream) {
  return std::make_unique<CudaEventTimer>(static_cast<cudaStream_t>(cuda_stream));
}

}  // namespace fp4gemm
