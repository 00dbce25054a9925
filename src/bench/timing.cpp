#include "bench/timing.hpp"

#include <algorithm>
#include <cmath>

#include "bench/run_set.hpp"
#include "bench/sampler.hpp"
#include "fp4gemm/device.hpp"
#include "fp4gemm/error.hpp"

namespace fp4gemm {
namespace {

// The time limit of the launch-overhead measurement: an empty kernel converges quickly.
constexpr double kLaunchOverheadSeconds = 0.2;

}  // namespace

std::string_view to_string(TimingMethod method) {
  switch (method) {
    case TimingMethod::graph: return "graph";
    case TimingMethod::stream: return "stream";
    case TimingMethod::single: return "single";
  }
  return "";
}

std::string_view to_string(CacheState cache) { return cache == CacheState::cold ? "cold" : "hot"; }

TimingMethod parse_timing_method(std::string_view text, std::string_view argument) {
  for (TimingMethod m : {TimingMethod::graph, TimingMethod::stream, TimingMethod::single})
    if (text == to_string(m)) return m;
  throw InvalidArgument(
      fmt::format("{} = '{}' is not a timing method (graph, stream or single)", argument, text));
}

CacheState parse_cache_state(std::string_view text, std::string_view argument) {
  for (CacheState c : {CacheState::cold, CacheState::hot})
    if (text == to_string(c)) return c;
  throw InvalidArgument(fmt::format("{} = '{}' is not a cache state (cold or hot)", argument, text));
}

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

int plan_calls_per_sample(TimingMethod method, double one_call_s, int rotations,
                          const TimingOptions& options) {
  if (method == TimingMethod::single) return 1;
  const int r = std::max(rotations, 1);
  const double calls = std::ceil(options.sample_target_seconds / std::max(one_call_s, 1e-9));
  const int cycles = std::max(1, int(std::ceil(calls / r)));
  return cycles * r;
}

Timing time_gemm(RunSet& set, const TimingOptions& options) {
  std::vector<GemmRun*> runs;
  for (const auto& run : set.runs) runs.push_back(run.get());
  const StreamBinding binding(runs);  // step 1
  CallCycle cycle(runs);
  Timing t;
  t.cache = set.cache;
  t.rotations = cycle.size();
  t.working_set_bytes = set.working_set_bytes;

  for (int i = 0; i < std::max(options.warmup_calls, cycle.size()); ++i) cycle.call();  // step 2
  cycle.first().synchronize();
  const double one_call = std::max(make_sampler(TimingMethod::stream, cycle, 1).sampler->sample_seconds(), 1e-9);
  const TimingMethod method = cycle.first().cuda_stream() ? options.method : TimingMethod::stream;
  t.calls_per_sample = plan_calls_per_sample(method, one_call, cycle.size(), options);  // step 3

  // Graph capture may fail and fall back to stream, with the same calls per sample.
  SamplerChoice choice = make_sampler(method, cycle, t.calls_per_sample);
  t.method = choice.method;
  t.timer = choice.timer;
  t.note = choice.note;
  if (!set.note.empty()) t.note += (t.note.empty() ? "" : "; ") + set.note;

  std::vector<double> samples;  // step 4
  double elapsed = one_call;
  while (true) {
    const double seconds = choice.sampler->sample_seconds();
    elapsed += seconds;
    samples.push_back(seconds / t.calls_per_sample);
    if (should_stop(samples, elapsed, options, &t.converged)) break;
  }
  const SampleStats s = summarize(samples);  // step 5
  t.median_s = s.median;
  t.p10_s = s.p10;
  t.p90_s = s.p90;
  t.rsd = s.rsd;
  t.samples = int(samples.size());
  return t;
}

double measure_launch_overhead(TimingMethod method, const TimingOptions& options) {
#if defined(FP4GEMM_HAVE_CUDA)
  if (method != TimingMethod::graph && cuda_device_present()) {
    RunSet set;
    set.runs.push_back(make_empty_launch_run());
    TimingOptions o = options;
    o.method = method;
    o.max_seconds = std::min(options.max_seconds, kLaunchOverheadSeconds);
    o.min_seconds = std::min(options.min_seconds, o.max_seconds);
    return time_gemm(set, o).median_s;
  }
#endif
  (void)method, (void)options;
  return 0;
}

}  // namespace fp4gemm
