// cpu_vs_openblas: cpu-fast (NVFP4 w4a16, f32 out) against OpenBLAS cblas_sgemm on the same
// operands dequantized to fp32 (A: M x K, B: N x K, D = A B^T via sgemm with B transposed).
//
// Protocol, per shape and per contender:
//   1. both use every logical core (OpenBLAS threads set explicitly; cpu-fast splits its work
//      over hardware_concurrency threads);
//   2. a warm-up call, then `repeats` timed calls (steady_clock around one call), median taken;
//   3. twice: "cold", where a buffer of twice the last-level cache is rewritten before each timed
//      call (weights come from DRAM, as for a layer's weights during inference), and "warm",
//      calls back to back; after sgemm, a pause lets OpenBLAS's spinning workers sleep before
//      cpu-fast is timed again;
//   4. the two results are compared (max |difference| / max |D|), so a fast wrong kernel cannot
//      pass unnoticed.
// Bytes per call: cpu-fast reads the FP4 codes and scales, the bf16 activations, writes fp32 D;
// sgemm reads fp32 A and B, writes fp32 D. The table and the JSON give times, GFLOP/s, GB/s and
// the speedup t_sgemm / t_fast.
#include <cblas.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cpu/fast_gemm.hpp"
#include "cpu/parallel_for.hpp"
#include "fp4gemm/backend.hpp"
#include "fp4gemm/device.hpp"
#include "fp4gemm/gemm.hpp"
#include "fp4gemm/quantize.hpp"

namespace {

using namespace fp4gemm;
using Clock = std::chrono::steady_clock;

struct Timing {
  double median_s = 0;
  double min_s = 0;
};

// Rewrites a buffer larger than the caches so that the next call finds its operands in DRAM.
class CacheFlusher {
 public:
  explicit CacheFlusher(std::size_t bytes) : buffer_(bytes / sizeof(std::uint64_t), 1) {}
  void flush() {
    for (auto& v : buffer_) v = v * 3 + 1;
  }
  std::size_t bytes() const { return buffer_.size() * sizeof(std::uint64_t); }

 private:
  std::vector<std::uint64_t> buffer_;
};

Timing time_calls(const std::function<void()>& call, int repeats, CacheFlusher* flusher) {
  call();  // warm-up: page faults, thread start, OpenBLAS buffers
  std::vector<double> seconds;
  for (int i = 0; i < repeats; ++i) {
    if (flusher) flusher->flush();
    const auto start = Clock::now();
    call();
    seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  std::sort(seconds.begin(), seconds.end());
  return {seconds[seconds.size() / 2], seconds.front()};
}

std::size_t last_level_cache_bytes() {
  const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  const long bytes = std::max(l3, l2);
  return bytes > 0 ? std::size_t(bytes) : std::size_t(64) << 20;
}

nlohmann::json contender_json(const Timing& t, double flops, double bytes) {
  return {{"median_s", t.median_s},
          {"min_s", t.min_s},
          {"gflops", flops / t.median_s * 1e-9},
          {"gbytes_per_s", bytes / t.median_s * 1e-9},
          {"bytes", bytes}};
}

// The 1-minute load average: how much else was running (other users share the cores).
double load_average() {
  double load = -1;
  return getloadavg(&load, 1) == 1 ? load : -1;
}

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cpu-fast (NVFP4 w4a16) against OpenBLAS sgemm on the same dequantized operands"};
  std::string json_path;
  int repeats = 9;
  std::vector<std::string> shape_texts = {"1x6144x6144", "16x6144x6144", "256x6144x6144",
                                          "1x768x6144", "256x768x6144"};
  app.add_option("--json", json_path, "write the results as JSON to this file");
  app.add_option("--repeats", repeats, "timed calls per measurement (median taken)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--shapes", shape_texts, "MxNxK shapes")->expected(1, -1);
  CLI11_PARSE(app, argc, argv);
  std::string command;
  for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);

  const unsigned threads = cpu::hardware_threads();
  openblas_set_num_threads(int(threads));
  const CpuInfo cpu_info = query_cpu();
  const auto fast = cpu::make_fast_backend();
  CacheFlusher flusher(2 * last_level_cache_bytes());
  const double load_at_start = load_average();

  nlohmann::json results = nlohmann::json::array();
  std::printf("%-16s %-5s %12s %12s %9s %9s %9s %9s %8s %10s\n", "MxNxK", "cache", "fast ms",
              "sgemm ms", "fast GF/s", "sgemm GF", "fast GB/s", "sgemm GB", "speedup", "max rel");
  for (const std::string& text : shape_texts) {
    GemmShape shape;
    if (std::sscanf(text.c_str(), "%ldx%ldx%ld", &shape.m, &shape.n, &shape.k) != 3) {
      std::fprintf(stderr, "--shapes: '%s' is not MxNxK\n", text.c_str());
      return 2;
    }
    GemmProblem problem;
    problem.shape = shape;  // NVFP4, w4a16, linear scales, f32 out (the defaults)
    const GemmOperands ops = random_operands(problem, 2024);
    // sgemm's operands: the same values in fp32; alpha_total = scale_2 is inside B here.
    const std::vector<float> a = ops.a_bf16.to_f32();
    const std::vector<float> b = dequantize(ops.b);
    std::vector<float> c(std::size_t(shape.m * shape.n));
    const auto run = fast->prepare(ops);
    const auto call_fast = [&] { run->run(); };
    const auto call_sgemm = [&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(shape.m), int(shape.n),
                  int(shape.k), ops.alpha, a.data(), int(shape.k), b.data(), int(shape.k), 0.0f,
                  c.data(), int(shape.n));
    };
    const double m = double(shape.m), n = double(shape.n), k = double(shape.k);
    const double flops = shape.flops();
    const double fast_bytes = n * k / 2 + n * k / 16 + m * k * 2 + m * n * 4;
    const double sgemm_bytes = n * k * 4 + m * k * 4 + m * n * 4;

    call_fast();
    call_sgemm();
    const std::vector<float> d = run->output();
    double max_diff = 0, max_abs = 0;
    for (std::size_t i = 0; i < d.size(); ++i) {
      max_diff = std::max(max_diff, double(std::fabs(d[i] - c[i])));
      max_abs = std::max(max_abs, double(std::fabs(c[i])));
    }
    const double max_rel = max_diff / std::max(max_abs, 1e-30);

    nlohmann::json entry = {{"m", shape.m}, {"n", shape.n}, {"k", shape.k},
                            {"flops", flops}, {"max_rel_difference", max_rel}};
    for (const bool cold : {true, false}) {
      CacheFlusher* f = cold ? &flusher : nullptr;
      const Timing tf = time_calls(call_fast, repeats, f);
      const Timing ts = time_calls(call_sgemm, repeats, f);
      // OpenBLAS's workers busy-wait for a while after each call (2^28 cycles by default);
      // let them go to sleep so that they do not compete with the next cpu-fast measurement.
      std::this_thread::sleep_for(std::chrono::seconds(1));
      const double speedup = ts.median_s / tf.median_s;
      entry[cold ? "cold" : "warm"] = {{"cpu_fast", contender_json(tf, flops, fast_bytes)},
                                       {"sgemm", contender_json(ts, flops, sgemm_bytes)},
                                       {"speedup_fast_over_sgemm", speedup}};
      std::printf("%-16s %-5s %12.3f %12.3f %9.1f %9.1f %9.1f %9.1f %7.2fx %10.2e\n", text.c_str(),
                  cold ? "cold" : "warm", tf.median_s * 1e3, ts.median_s * 1e3,
                  flops / tf.median_s * 1e-9, flops / ts.median_s * 1e-9,
                  fast_bytes / tf.median_s * 1e-9, sgemm_bytes / ts.median_s * 1e-9, speedup,
                  max_rel);
      std::fflush(stdout);
    }
    results.push_back(entry);
  }

  const nlohmann::json doc = {
      {"command", command},
      {"cpu", {{"model", cpu_info.model},
               {"logical_cores", cpu_info.logical_cores},
               {"simd_in_use", cpu_info.simd_in_use}}},
      {"cpu_fast", {{"backend", std::string(fast->name())}, {"threads", threads},
                    {"problem", "nvfp4 w4a16, linear scales, f32 out"}}},
      {"openblas", {{"threads", openblas_get_num_threads()},
                    {"config", openblas_get_config()},
                    {"corename", openblas_get_corename()},
                    {"OPENBLAS_CORETYPE", env_or("OPENBLAS_CORETYPE", "(unset)")},
                    {"OPENBLAS_L2_SIZE", env_or("OPENBLAS_L2_SIZE", "(unset)")}}},
      {"timing", {{"clock", "steady_clock, one call per sample"},
                  {"warmup_calls", 1},
                  {"repeats", repeats},
                  {"statistic", "median"},
                  {"cold", fmt::format("{} MiB rewritten before each timed call",
                                       flusher.bytes() >> 20)},
                  {"warm", "calls back to back"},
                  {"load_average_1min", {{"start", load_at_start}, {"end", load_average()}}}}},
      {"bytes", "cpu_fast: N*K/2 codes + N*K/16 scales + M*K*2 bf16 A + M*N*4 D; "
                "sgemm: N*K*4 + M*K*4 + M*N*4"},
      {"speedup", "t_sgemm / t_cpu_fast (median); > 1: cpu-fast is faster"},
      {"results", results}};
  std::printf("cpu: %s, %u threads (cpu-fast %s, OpenBLAS %d threads, core %s); load average "
              "%.1f at start, %.1f at end\n",
              cpu_info.model.c_str(), threads, cpu_info.simd_in_use.c_str(),
              openblas_get_num_threads(), openblas_get_corename(), load_at_start, load_average());
  if (!json_path.empty()) {
    std::ofstream out(json_path);
    out << doc.dump(2) << "\n";
    if (!out) {
      std::fprintf(stderr, "cannot write %s\n", json_path.c_str());
      return 1;
    }
  }
  return 0;
}
