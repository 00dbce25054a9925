#pragma once
// IntervalTimer: measures the time of the work enqueued between start() and stop(). For a GPU
// run it records CUDA events on the run's stream (device time, no host sync inside the
// interval); for a host run it reads std::chrono::steady_clock.
#include <memory>

#include "fp4gemm/backend.hpp"

namespace fp4gemm {

class IntervalTimer {
 public:
  virtual ~IntervalTimer() = default;
  virtual const char* method() const = 0;  // "cuda-events" or "steady-clock"
  virtual void start() = 0;
  virtual double stop_seconds() = 0;       // waits for the interval's work to finish
};

std::unique_ptr<IntervalTimer> make_interval_timer(GemmRun& run);

#if defined(FP4GEMM_HAVE_CUDA)
// src/cuda/cuda_event_timer.cpp
std::unique_ptr<IntervalTimer> make_cuda_event_timer(void* cuda_stream);
#endif

}  // namespace fp4gemm
