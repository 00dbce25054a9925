#pragma once
// The best (least) time of repeated runs of one piece of work: the measure of a ceiling, where
// the question is what the hardware can do at its best, not what a run typically sees
// (time_gemm's median answers that one).
#include <algorithm>
#include <limits>

#include "bench/interval_timer.hpp"

namespace fp4gemm {

// `warmup` untimed calls of `work` (clocks up, library state built), then `repetitions` calls,
// each timed alone by `timer`; the least of those times, in seconds.
template <typename Work>
double best_seconds(IntervalTimer& timer, int warmup, int repetitions, Work&& work) {
  for (int i = 0; i < warmup; ++i) work();
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i < repetitions; ++i) {
    timer.start();
    work();
    best = std::min(best, timer.stop_seconds());
  }
  return best;
}

}  // namespace fp4gemm
