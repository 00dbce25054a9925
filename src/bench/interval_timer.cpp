#include "bench/interval_timer.hpp"

#include <chrono>

namespace fp4gemm {
namespace {

class SteadyClockTimer final : public IntervalTimer {
 public:
  explicit SteadyClockTimer(GemmRun& run) : run_(run) {}
  const char* method() const override { return "steady-clock"; }
  void start() override { start_ = std::chrono::steady_clock::now(); }
  double stop_seconds() override {
    run_.synchronize();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  GemmRun& run_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

std::unique_ptr<IntervalTimer> make_interval_timer(GemmRun& run) {
#if defined(FP4GEMM_HAVE_CUDA)
  if (void* stream = run.cuda_stream()) return make_cuda_event_timer(stream);
#endif
  return std::make_unique<SteadyClockTimer>(run);
}

}  // namespace fp4gemm
