#pragma once
// The best (least) time of repeated runs of one piece of GPU work: the measure of a ceiling, where
// the question is what the hardware can do at its best, not what a run typically sees
// (time_gemm's median answers that one). CUDA events on the work's stream: device time.
#include <cuda_runtime.h>

#include <algorithm>
#include <limits>

#include "cuda/device_buffer.hpp"

namespace fp4gemm::cuda {

// `warmup` untimed calls of `work` (clocks up, library state built), then `repetitions` calls,
// each timed alone between events on `stream`; the least of those times, in seconds.
template <typename Work>
double best_seconds(cudaStream_t stream, int warmup, int repetitions, Work&& work) {
  for (int i = 0; i < warmup; ++i) work();
  Event start, stop;
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i < repetitions; ++i) {
    start.record(stream);
    work();
    stop.record(stream);
    FP4GEMM_CUDA_CHECK(cudaEventSynchronize(stop.get()));
    best = std::min(best, double(stop.elapsed_since(start)) * 1e-3);
  }
  return best;
}

}  // namespace fp4gemm::cuda
