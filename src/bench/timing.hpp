#pragma once
// The timing harness every verb uses: warm-up, then samples of `calls_per_sample` back-to-back
// calls (enough that one sample lasts >= sample_target_seconds, so event and launch-gap noise
// is amortized), until the relative standard deviation of the samples is under `target_rsd`
// with at least min_samples and min_seconds spent — or max_seconds / max_samples is reached.
// Reports the median per-call time with p10/p90 over samples.
#include <string>
#include <string_view>
#include <vector>

#include "fp4gemm/backend.hpp"

namespace fp4gemm {

struct TimingOptions {
  int warmup_calls = 3;
  double sample_target_seconds = 200e-6;
  int min_samples = 10;
  int max_samples = 2000;
  double min_seconds = 0.1;
  double max_seconds = 2.0;
  double target_rsd = 0.02;
};

// The default options with at most `max_seconds` per measurement (min_seconds lowered to it);
// InvalidArgument "<argument> = X must be positive" otherwise.
TimingOptions timing_with_limit(double max_seconds, std::string_view argument);

struct Timing {
  double median_s = 0, p10_s = 0, p90_s = 0;
  double rsd = 0;               // relative standard deviation of the samples
  int samples = 0;
  int calls_per_sample = 0;
  bool converged = false;       // stopped on the RSD rule (not on max time/samples)
  std::string method;           // "cuda-events" or "steady-clock"
};

// Summary statistics of per-call sample times (seconds); exposed for tests of the stopping rule.
struct SampleStats {
  double median = 0, p10 = 0, p90 = 0, mean = 0, rsd = 0;
};
SampleStats summarize(std::vector<double> samples);
// True once the samples satisfy the stopping rule of `options` after `elapsed` seconds.
bool should_stop(const std::vector<double>& samples, double elapsed, const TimingOptions& options,
                 bool* converged = nullptr);

Timing time_gemm(GemmRun& run, const TimingOptions& options);

}  // namespace fp4gemm
