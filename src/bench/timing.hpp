#pragma once
// The timing harness every verb uses. One measurement of a RunSet (one prepared run, or R runs
// on their own device copies of the operands for a cold cache, src/bench/run_set.hpp):
//   1. GPU runs are bound to the first run's stream (GemmRun::bind_cuda_stream), so that calls
//      are ordered on one stream and call i goes to runs[i % R] (CallCycle, sampler.hpp);
//   2. warm-up: max(warmup_calls, R) calls, so that every run has been called once;
//   3. one call timed on the stream sizes the samples (plan_calls_per_sample): single timing
//      makes one call per sample, stream and graph timing enough back-to-back calls that a
//      sample lasts >= sample_target_seconds, a multiple of R so every sample calls each
//      operand set equally often;
//   4. samples, timed by the method's Sampler, until the relative standard deviation of the
//      per-call times is under `target_rsd` with at least min_samples and min_seconds spent,
//      or max_seconds / max_samples is reached (should_stop);
//   5. the median per-call time with p10/p90 over samples.
// Methods (GPU runs; host runs are always `stream`, timed with the steady clock, and hot):
//   graph   the calls of a sample captured once into a CUDA graph; each sample is one graph
//           launch between CUDA events: launch overhead out, the kernels' own time;
//   stream  back-to-back calls between CUDA events: launch gaps in where launches are slower
//           than the kernels;
//   single  the stream synchronized, then events around one call: what a serving loop that
//           waits for each GEMM sees, launch latency in.
// A run that cannot be captured (it allocates, synchronizes or reads the host inside run())
// falls back to `stream` and says so in Timing::note.
#include <string>
#include <string_view>
#include <vector>

#include "fp4gemm/backend.hpp"

namespace fp4gemm {

struct RunSet;  // run_set.hpp

enum class TimingMethod { graph, stream, single };
// cold: operand sets rotated so that the working set is >= 3x the L2 (run_set.hpp); hot: one.
enum class CacheState { cold, hot };

std::string_view to_string(TimingMethod method);
std::string_view to_string(CacheState cache);
// InvalidArgument "<argument> = 'x' is not a timing method (graph, stream or single)" otherwise.
TimingMethod parse_timing_method(std::string_view text, std::string_view argument);
// InvalidArgument "<argument> = 'x' is not a cache state (cold or hot)" otherwise.
CacheState parse_cache_state(std::string_view text, std::string_view argument);

struct TimingOptions {
  int warmup_calls = 3;
  double sample_target_seconds = 200e-6;
  int min_samples = 10;
  int max_samples = 2000;
  double min_seconds = 0.1;
  double max_seconds = 2.0;
  double target_rsd = 0.02;
  TimingMethod method = TimingMethod::graph;  // for GPU runs (host runs: stream)
  CacheState cache = CacheState::cold;        // for GPU runs (host runs: hot)
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
  TimingMethod method = TimingMethod::stream;  // the method used (graph may fall back: note)
  std::string timer;            // "cuda-events" or "steady-clock"
  CacheState cache = CacheState::hot;
  int rotations = 1;            // operand sets cycled through, call by call (R)
  double working_set_bytes = 0; // the bytes of all R operand sets (gemm_bytes x R)
  std::string note;             // why the method or the rotation is not what was asked; or empty
};

// Summary statistics of per-call sample times (seconds); exposed for tests of the stopping rule.
struct SampleStats {
  double median = 0, p10 = 0, p90 = 0, mean = 0, rsd = 0;
};
SampleStats summarize(std::vector<double> samples);
// True once the samples satisfy the stopping rule of `options` after `elapsed` seconds.
bool should_stop(const std::vector<double>& samples, double elapsed, const TimingOptions& options,
                 bool* converged = nullptr);
// Step 3 above: 1 for single; else ceil(sample_target_seconds / one_call_s) rounded up to a
// multiple of `rotations` (>= 1).
int plan_calls_per_sample(TimingMethod method, double one_call_s, int rotations,
                          const TimingOptions& options);

// Times `runs` (all of one backend and problem) with options.method, or `stream` for host runs.
Timing time_gemm(RunSet& runs, const TimingOptions& options);

// The launch overhead that `method` puts into a measured time: an empty kernel timed by the
// same harness, hot (src/cuda/empty_launch.cu). 0 for graph, and in builds without CUDA.
double measure_launch_overhead(TimingMethod method, const TimingOptions& options);

}  // namespace fp4gemm
