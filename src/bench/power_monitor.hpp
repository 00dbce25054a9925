#pragma once
// Power, clocks and temperature of the GPU while a benchmark runs, read through NVML.
//
// libnvidia-ml.so.1 is loaded at run time with dlopen (no link-time dependency: the binary runs
// on machines without the driver). A sampler thread reads power, SM and memory clocks and the
// temperature every ~5 ms between start() and stop(); stop() returns their summary. When NVML is
// absent or fails, the monitor says so in one line (status(): "power: NVML not available
// (libnvidia-ml.so.1: cannot open shared object file: ...)") and stop() returns nothing: never a
// crash, never a made-up number.
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace fp4gemm {

// One NVML reading.
struct PowerSample {
  double power_w = 0;
  double sm_mhz = 0;
  double mem_mhz = 0;
  double temperature_c = 0;
};

// Share of samples whose SM clock is below this fraction of the maximum: counted as throttled.
inline constexpr double kThrottleClockShare = 0.75;

struct PowerSummary {
  int samples = 0;
  double mean_power_w = 0;
  double limit_w = 0;            // the enforced board power limit
  double mean_sm_mhz = 0;
  double mean_mem_mhz = 0;
  double max_sm_mhz = 0;         // the device's maximum SM clock
  double max_temperature_c = 0;
  double throttle_share = 0;     // share of samples with SM clock < kThrottleClockShare * max
  // "612 W / 700 W, SM 1980 MHz, mem 3201 MHz, 61 C, throttled 0%"
  std::string describe() const;
};

// The summary of `samples` (at least one) against the board limit and the maximum SM clock.
PowerSummary summarize_power(std::span<const PowerSample> samples, double limit_w,
                             double max_sm_mhz);

class PowerMonitor {
 public:
  // Loads `library` and opens the NVML device `device_index` (NVML's numbering, which is the
  // PCI order; CUDA's default order is the same unless CUDA_VISIBLE_DEVICES reorders it).
  explicit PowerMonitor(unsigned device_index = 0, const char* library = "libnvidia-ml.so.1");
  ~PowerMonitor();
  PowerMonitor(const PowerMonitor&) = delete;
  PowerMonitor& operator=(const PowerMonitor&) = delete;

  bool available() const { return available_; }
  // "power: NVML on device 0 (limit 700 W, max SM clock 1980 MHz)" or
  // "power: NVML not available (<why>)".
  const std::string& status() const { return status_; }

  // Starts the sampler thread (no-op when unavailable or already running).
  void start();
  // Stops it; the summary of the samples since start(), or nothing (unavailable, no sample).
  std::optional<PowerSummary> stop();

 private:
  struct Nvml;
  bool read(PowerSample& sample) const;
  void sample_loop();

  std::unique_ptr<Nvml> nvml_;
  bool available_ = false;
  std::string status_;
  double limit_w_ = 0;
  double max_sm_mhz_ = 0;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::vector<PowerSample> samples_;
};

}  // namespace fp4gemm
