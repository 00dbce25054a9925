#include "bench/timing.hpp"

#include <algorithm>
#include <cmath>

#include "bench/interval_timer.hpp"
#include "fp4gemm/error.hpp"

namespace fp4gemm {

SampleStats summarize(std::vector<double> samples) {
  SampleStats s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  const auto quantile = [&](double q) {  // linear interpolation between order statistics
    const double pos = q * double(samples.size() - 1);
    const std::size_t lo = std::size_t(pos);
    const std::size_t hi = std::min(lo + 1, samples.size() - 1);
    return samples[lo] + (pos - double(lo)) * (samples[hi] - samples[lo]);
  };
  s.median = quantile(0.5);
  s.p10 = quantile(0.1);
  s.p90 = quantile(0.9);
  double sum = 0;
  for (double x : samples) sum += x;
  s.mean = sum / double(samples.size());
  double var = 0;
  for (double x : samples) var += (x - s.mean) * (x - s.mean);
  s.rsd = samples.size() > 1 && s.mean > 0 ? std::sqrt(var / double(samples.size() - 1)) / s.mean : 0;
  return s;
}

bool should_stop(const std::vector<double>& samples, double elapsed, const TimingOptions& options,
                 bool* converged) {
  const bool enough = int(samples.size()) >= options.min_samples && elapsed >= options.min_seconds;
  const bool quiet = enough && summarize(samples).rsd <= options.target_rsd;
  if (converged) *converged = quiet;
  return quiet || elapsed >= options.max_seconds || int(samples.size()) >= options.max_samples;
}

TimingOptions timing_with_limit(double max_seconds, std::string_view argument) {
  require(max_seconds > 0, "{} = {} must be positive", argument, max_seconds);
  TimingOptions options;
  options.max_seconds = max_seconds;
  options.min_seconds = std::min(options.min_seconds, max_seconds);
  return options;
}

Timing time_gemm(GemmRun& run, const TimingOptions& options) {
  auto timer = make_interval_timer(run);
  Timing t;
  t.method = timer->method();
  // Warm-up, then one timed call to size the samples.
  for (int i = 0; i < options.warmup_calls; ++i) run.run();
  run.synchronize();
  timer->start();
  run.run();
  const double single = std::max(timer->stop_seconds(), 1e-9);
  t.calls_per_sample = std::max(1, int(std::ceil(options.sample_target_seconds / single)));

  std::vector<double> samples;
  double elapsed = single;
  while (true) {
    timer->start();
    for (int i = 0; i < t.calls_per_sample; ++i) run.run();
    const double seconds = timer->stop_seconds();
    elapsed += seconds;
    samples.push_back(seconds / t.calls_per_sample);
    if (should_stop(samples, elapsed, options, &t.converged)) break;
  }
  const SampleStats s = summarize(samples);
  t.median_s = s.median;
  t.p10_s = s.p10;
  t.p90_s = s.p90;
  t.rsd = s.rsd;
  t.samples = int(samples.size());
  return t;
}

}  // namespace fp4gemm
