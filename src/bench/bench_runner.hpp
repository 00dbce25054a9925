#pragma once
// The engine of `fp4gemm bench`: each case on each backend, timed with time_gemm().
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/ceilings.hpp"
#include "bench/power_monitor.hpp"
#include "bench/roofline.hpp"
#include "bench/run_set.hpp"
#include "bench/timing.hpp"
#include "fp4gemm/backend.hpp"

namespace fp4gemm {

struct BenchCase {
  GemmProblem problem;
  std::string description;  // e.g. "attn proj (seed)"
};

struct BenchRow {
  std::string backend;
  BenchCase bench_case;
  bool ran = false;
  std::string note;     // why it did not run (can_implement, error)
  Timing timing;
  double bytes = 0;     // bytes the backend must move at least once (its operand encoding)
  LaunchOverhead launch;  // in the time (GPU rows timed by stream or single), measured per method
  Roofline roofline;    // of the median time (left empty when the row did not run)
  std::optional<PowerSummary> power;  // GPU rows, when NVML is available (PowerMonitor)
  std::optional<Dispatch> dispatch;   // rows of a dispatching backend (auto): which kernel, why
  std::string plan;                   // the run's launch plan (GemmRun::plan), where it tells one
  double tflops() const { return ran ? bench_case.problem.shape.flops() / timing.median_s * 1e-12 : 0; }
  double gbps() const { return ran ? bytes / timing.median_s * 1e-9 : 0; }
};

// Bytes a GEMM moves through memory at the least, each operand read once and D written once:
//   fp4:  packed data (K/2 per row) + scales in the problem's layout (padding included) + the
//         fp32 tensor scale (NVFP4 only) for B, and for A too in w4a4; bf16 A (2 bytes per
//         element) in w4a16;
//   bf16: every operand as 2-byte elements;  fp8: 1-byte elements (+ 2 fp32 tensor scales);
//   plus M x N output elements of out_dtype.
double gemm_bytes(const GemmProblem& problem, OperandEncoding encoding);

// Whether any of `backends` runs on a CUDA device (then run_bench samples power).
bool any_gpu_backend(const std::vector<const Backend*>& backends);

// The launch overhead of each timing method (measure_launch_overhead), measured at its first
// GPU row and kept for the rest of the run; none for graph timing and host rows.
class LaunchOverheads {
 public:
  explicit LaunchOverheads(const TimingOptions& timing) : timing_(timing) {}
  LaunchOverhead of(bool gpu, TimingMethod method);

 private:
  TimingOptions timing_;
  std::map<TimingMethod, double> seconds_;
};

// Fills `row` (backend, bench_case and bytes set): prepare() the runs, time_gemm with power
// sampled for GPU rows, the roofline on `path`'s peak with the launch overhead of the method the
// row was timed with; an Error on the way becomes row.note (ran = false).
void measure_row(BenchRow& row, bool gpu, ComputePath path, const std::function<RunSet()>& prepare,
                 const TimingOptions& timing, const Ceilings& ceilings, PowerMonitor* power,
                 LaunchOverheads& launch);

using BenchRowCallback = std::function<void(const BenchRow&)>;
// Each case on each backend. `timing`: options.method and options.cache apply to GPU backends
// (prepare_runs, time_gemm); host backends are timed hot with the steady clock. `ceilings`: those
// of the GPU the CUDA backends run on (choose_ceilings); each row's roofline uses them with the
// backend's compute_path() and, for stream or single timing, the launch overhead measured once
// per method. `power`: sampled around time_gemm for GPU backends (DeviceKind::cuda) when
// available(); null: run_bench opens its own when a GPU backend is in the list (pass one to print
// its status() line).
std::vector<BenchRow> run_bench(const std::vector<BenchCase>& cases,
                                const std::vector<const Backend*>& backends,
                                const TimingOptions& timing, std::uint64_t seed,
                                const Ceilings& ceilings, const BenchRowCallback& on_row = {},
                                PowerMonitor* power = nullptr);

}  // namespace fp4gemm
