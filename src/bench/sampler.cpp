// CallCycle, StreamBinding and the host sampler (steady clock around back-to-back calls).
#include "bench/sampler.hpp"

#include <chrono>

#include "fp4gemm/error.hpp"

namespace fp4gemm {
namespace {

class SteadyClockSampler final : public Sampler {
 public:
  SteadyClockSampler(CallCycle& cycle, int calls) : cycle_(cycle), calls_(calls) {}
  double sample_seconds() override {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < calls_; ++i) cycle_.call();
    cycle_.first().synchronize();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

 private:
  CallCycle& cycle_;
  int calls_;
};

}  // namespace

CallCycle::CallCycle(std::span<GemmRun* const> runs) : runs_(runs) {
  require(!runs.empty(), "a timing needs at least one prepared run");
}

void CallCycle::call() {
  runs_[next_]->run();
  next_ = (next_ + 1) % runs_.size();
}

SamplerChoice make_sampler(TimingMethod method, CallCycle& cycle, int calls_per_sample) {
#if defined(FP4GEMM_HAVE_CUDA)
  if (void* stream = cycle.first().cuda_stream())
    return make_cuda_sampler(method, cycle, calls_per_sample, stream);
#endif
  (void)method;  // host runs are always timed back to back
  return {std::make_unique<SteadyClockSampler>(cycle, calls_per_sample), TimingMethod::stream,
          "steady-clock", ""};
}

StreamBinding::StreamBinding(std::span<GemmRun* const> runs) {
  void* stream = runs.front()->cuda_stream();
  if (!stream) return;
  for (GemmRun* run : runs.subspan(1)) run->bind_cuda_stream(stream);
  bound_ = runs.subspan(1);
}

StreamBinding::~StreamBinding() {
  // Binding back to the own stream only sets a pointer (and, for cuBLAS, the handle's stream
  // and workspace), which does not fail on a valid handle; a failure here would be reported
  // by the next call on that run.
  for (GemmRun* run : bound_) {
    try {
      run->bind_cuda_stream(nullptr);
    } catch (const std::exception&) {
    }
  }
}

}  // namespace fp4gemm
