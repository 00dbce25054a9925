#include "bench/bench_runner.hpp"

#include <algorithm>

#include "fp4gemm/error.hpp"
#include "fp4gemm/layout.hpp"

namespace fp4gemm {
namespace {

double fp4_operand_bytes(std::int64_t rows, std::int64_t k, const GemmProblem& p) {
  const std::int64_t scale_cols = k / block_size(p.format);
  const double tensor_scale = p.format == Fp4Format::nvfp4 ? 4.0 : 0.0;  // fp32 scale_2
  return double(rows * k / 2) + double(scale_bytes(p.scale_layout, rows, scale_cols)) + tensor_scale;
}

}  // namespace

double gemm_bytes(const GemmProblem& p, OperandEncoding encoding) {
  const GemmShape& s = p.shape;
  const double out = double(s.m * s.n * dtype_bytes(p.out_dtype));
  switch (encoding) {
    case OperandEncoding::fp4: {
      const double a = p.mode == Mode::w4a4 ? fp4_operand_bytes(s.m, s.k, p) : double(s.m * s.k * 2);
      return a + fp4_operand_bytes(s.n, s.k, p) + out;
    }
    case OperandEncoding::bf16: return double((s.m + s.n) * s.k * 2) + out;
    case OperandEncoding::fp8: return double((s.m + s.n) * s.k) + 8.0 + out;
  }
  return 0;
}

bool any_gpu_backend(const std::vector<const Backend*>& backends) {
  return std::any_of(backends.begin(), backends.end(),
                     [](const Backend* b) { return b->device() == DeviceKind::cuda; });
}

LaunchOverhead LaunchOverheads::of(bool gpu, TimingMethod method) {
  if (!gpu || method == TimingMethod::graph) return {};
  if (!seconds_.contains(method)) seconds_[method] = measure_launch_overhead(method, timing_);
  return {true, seconds_[method]};
}

void measure_row(BenchRow& row, bool gpu, ComputePath path, const std::function<RunSet()>& prepare,
                 const TimingOptions& timing, const Ceilings& ceilings, PowerMonitor* power,
                 LaunchOverheads& launch) {
  try {
    RunSet runs = prepare();
    row.plan = runs.runs.front()->plan();
    const bool sample_power = power && power->available() && gpu;
    if (sample_power) power->start();
    try {
      row.timing = time_gemm(runs, timing);
    } catch (...) {
      if (sample_power) power->stop();
      throw;
    }
    if (sample_power) row.power = power->stop();
    row.ran = true;
    row.launch = launch.of(gpu, row.timing.method);
    row.roofline = roofline(row.bench_case.problem.shape.flops(), row.bytes, row.timing.median_s,
                            ceilings, path, row.launch);
  } catch (const Error& e) {
    row.note = e.what();
  }
}

std::vector<BenchRow> run_bench(const std::vector<BenchCase>& cases,
                                const std::vector<const Backend*>& backends,
                                const TimingOptions& timing, std::uint64_t seed,
                                const Ceilings& ceilings, const BenchRowCallback& on_row,
                                PowerMonitor* power) {
  std::optional<PowerMonitor> own_power;
  if (!power && any_gpu_backend(backends)) power = &own_power.emplace();
  LaunchOverheads launch(timing);
  std::vector<BenchRow> rows;
  for (std::size_t c = 0; c < cases.size(); ++c) {
    const GemmProblem& problem = cases[c].problem;
    const GemmOperands operands = random_operands(problem, seed + c);
    for (const Backend* backend : backends) {
      BenchRow row;
      row.backend = std::string(backend->name());
      row.bench_case = cases[c];
      row.bytes = gemm_bytes(problem, backend->encoding());
      row.dispatch = backend->dispatch(problem);
      if (const Verdict v = backend->can_implement(problem); !v) {
        row.note = v.reason;
      } else {
        measure_row(row, backend->device() == DeviceKind::cuda, backend->compute_path(),
                    [&] { return prepare_runs(*backend, operands, timing.cache, row.bytes); },
                    timing, ceilings, power, launch);
      }
      if (on_row) on_row(row);
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace fp4gemm
