// The GPU samplers of the timing harness (timing.hpp gives the methods), all on one stream:
//   stream  events recorded before and after `calls` back-to-back calls;
//   single  the stream synchronized, then events around one call (the launch latency in);
//   graph   the `calls` calls captured once into a CUDA graph (the cycle's runs in turn, so a
//           cold set rotates inside the graph too), instantiated and uploaded; each sample is
//           one graph launch between events. Capture uses cudaStreamCaptureModeThreadLocal, so
//           a run() that allocates, synchronizes or copies to the host fails the capture; the
//           sampler then falls back to stream timing and says why.
#include <memory>
#include <type_traits>

#include <fmt/format.h>

#include "bench/sampler.hpp"
#include "cuda/device_buffer.hpp"

namespace fp4gemm {
namespace {

struct GraphDeleter {
  void operator()(cudaGraph_t g) const noexcept { FP4GEMM_CUDA_CHECK_NOEXCEPT(cudaGraphDestroy(g)); }
};
struct GraphExecDeleter {
  void operator()(cudaGraphExec_t g) const noexcept { FP4GEMM_CUDA_CHECK_NOEXCEPT(cudaGraphExecDestroy(g)); }
};
using Graph = std::unique_ptr<std::remove_pointer_t<cudaGraph_t>, GraphDeleter>;
using GraphExec = std::unique_ptr<std::remove_pointer_t<cudaGraphExec_t>, GraphExecDeleter>;

// Events around whatever enqueue() puts on the stream; waits for the stop event.
class EventSampler : public Sampler {
 public:
  explicit EventSampler(cudaStream_t stream) : stream_(stream) {}
  double sample_seconds() final {
    before_start();
    start_.record(stream_);
    enqueue();
    stop_.record(stream_);
    FP4GEMM_CUDA_CHECK(cudaEventSynchronize(stop_.get()));
    return double(stop_.elapsed_since(start_)) * 1e-3;
  }

 protected:
  virtual void before_start() {}
  virtual void enqueue() = 0;
  cudaStream_t stream() const { return stream_; }

 private:
  cudaStream_t stream_;
  cuda::Event start_, stop_;
};

class StreamSampler final : public EventSampler {
 public:
  StreamSampler(cudaStream_t stream, CallCycle& cycle, int calls)
      : EventSampler(stream), cycle_(cycle), calls_(calls) {}

 private:
  void enqueue() override {
    for (int i = 0; i < calls_; ++i) cycle_.call();
  }
  CallCycle& cycle_;
  int calls_;
};

class SingleSampler final : public EventSampler {
 public:
  SingleSampler(cudaStream_t stream, CallCycle& cycle) : EventSampler(stream), cycle_(cycle) {}

 private:
  void before_start() override { FP4GEMM_CUDA_CHECK(cudaStreamSynchronize(stream())); }
  void enqueue() override { cycle_.call(); }
  CallCycle& cycle_;
};

class GraphSampler final : public EventSampler {
 public:
  GraphSampler(cudaStream_t stream, GraphExec exec) : EventSampler(stream), exec_(std::move(exec)) {}

 private:
  void enqueue() override { FP4GEMM_CUDA_CHECK(cudaGraphLaunch(exec_.get(), stream())); }
  GraphExec exec_;
};

// The instantiated graph of `calls` calls, or null with the reason in `why`.
GraphExec capture(cudaStream_t stream, CallCycle& cycle, int calls, std::string& why) {
  FP4GEMM_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  try {
    for (int i = 0; i < calls; ++i) cycle.call();
  } catch (const std::exception& e) {
    why = e.what();
  }
  cudaGraph_t raw = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(stream, &raw);  // always: leaves capture mode
  Graph graph(raw);
  if (why.empty() && ended != cudaSuccess)
    why = fmt::format("cudaStreamEndCapture: {} ({})", cudaGetErrorName(ended), cudaGetErrorString(ended));
  cudaGraphExec_t exec = nullptr;
  if (why.empty()) {
    const cudaError_t made = cudaGraphInstantiate(&exec, graph.get(), 0);
    if (made != cudaSuccess)
      why = fmt::format("cudaGraphInstantiate: {} ({})", cudaGetErrorName(made), cudaGetErrorString(made));
  }
  if (!why.empty()) {
    cudaGetLastError();  // a failed capture is not an error of the next launch
    return nullptr;
  }
  GraphExec owned(exec);
  FP4GEMM_CUDA_CHECK(cudaGraphUpload(owned.get(), stream));
  return owned;
}

}  // namespace

SamplerChoice make_cuda_sampler(TimingMethod method, CallCycle& cycle, int calls_per_sample, void* stream_ptr) {
  const auto stream = static_cast<cudaStream_t>(stream_ptr);
  if (method == TimingMethod::single)
    return {std::make_unique<SingleSampler>(stream, cycle), method, "cuda-events", ""};
  std::string note;
  if (method == TimingMethod::graph) {
    std::string why;
    if (GraphExec exec = capture(stream, cycle, calls_per_sample, why))
      return {std::make_unique<GraphSampler>(stream, std::move(exec)), method, "cuda-events", ""};
    note = fmt::format("graph capture failed, timed on the stream instead: {}", why);
  }
  return {std::make_unique<StreamSampler>(stream, cycle, calls_per_sample), TimingMethod::stream,
          "cuda-events", note};
}

}  // namespace fp4gemm
