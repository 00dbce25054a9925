#include "bench/power_monitor.hpp"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "bench/nvml_library.hpp"

namespace fp4gemm {
namespace {

// The NVML functions (nvml.h) this module calls, beyond those NvmlLibrary handles.
constexpr int NVML_CLOCK_SM = 1;         // nvmlClockType_t
constexpr int NVML_CLOCK_MEM = 2;
constexpr int NVML_TEMPERATURE_GPU = 0;  // nvmlTemperatureSensors_t
using HandleByIndexFn = nvml::Return (*)(unsigned, nvml::Device*);
using UintFn = nvml::Return (*)(nvml::Device, unsigned*);        // power usage/limit, mW
using ClockFn = nvml::Return (*)(nvml::Device, int, unsigned*);  // clocks MHz, temp C

constexpr auto kSamplePeriod = std::chrono::milliseconds(5);

}  // namespace

struct PowerMonitor::Nvml {
  std::unique_ptr<NvmlLibrary> library;
  UintFn power_usage = nullptr;
  UintFn power_limit = nullptr;
  ClockFn clock = nullptr;
  ClockFn max_clock = nullptr;
  ClockFn temperature = nullptr;
  nvml::Device device = nullptr;
};

std::string PowerSummary::describe() const {
  return fmt::format("{:.0f} W / {:.0f} W, SM {:.0f} MHz, mem {:.0f} MHz, {:.0f} C, throttled {:.0f}%",
                     mean_power_w, limit_w, mean_sm_mhz, mean_mem_mhz, max_temperature_c,
                     throttle_share * 100);
}

PowerSummary summarize_power(std::span<const PowerSample> samples, double limit_w,
                             double max_sm_mhz) {
  PowerSummary s;
  s.limit_w = limit_w;
  s.max_sm_mhz = max_sm_mhz;
  s.samples = int(samples.size());
  if (samples.empty()) return s;
  int throttled = 0;
  for (const PowerSample& p : samples) {
    s.mean_power_w += p.power_w;
    s.mean_sm_mhz += p.sm_mhz;
    s.mean_mem_mhz += p.mem_mhz;
    s.max_temperature_c = std::max(s.max_temperature_c, p.temperature_c);
    if (max_sm_mhz > 0 && p.sm_mhz < kThrottleClockShare * max_sm_mhz) ++throttled;
  }
  const double n = double(samples.size());
  s.mean_power_w /= n;
  s.mean_sm_mhz /= n;
  s.mean_mem_mhz /= n;
  s.throttle_share = throttled / n;
  return s;
}

PowerMonitor::PowerMonitor(unsigned device_index, const char* library)
    : nvml_(std::make_unique<Nvml>()) {
  auto fail = [&](const std::string& why) {
    status_ = fmt::format("power: NVML not available ({})", why);
    nvml_.reset();  // shuts NVML down and closes the library
  };
  std::string why;
  nvml_->library = NvmlLibrary::open(library, why);
  if (!nvml_->library) { fail(why); return; }
  const NvmlLibrary& lib = *nvml_->library;
  const auto handle_by_index = lib.function<HandleByIndexFn>("nvmlDeviceGetHandleByIndex_v2");
  nvml_->power_usage = lib.function<UintFn>("nvmlDeviceGetPowerUsage");
  nvml_->power_limit = lib.function<UintFn>("nvmlDeviceGetEnforcedPowerLimit");
  nvml_->clock = lib.function<ClockFn>("nvmlDeviceGetClockInfo");
  nvml_->max_clock = lib.function<ClockFn>("nvmlDeviceGetMaxClockInfo");
  nvml_->temperature = lib.function<ClockFn>("nvmlDeviceGetTemperature");
  if (!handle_by_index || !nvml_->power_usage || !nvml_->power_limit || !nvml_->clock ||
      !nvml_->max_clock || !nvml_->temperature)
    { fail(fmt::format("{} lacks an NVML function this module needs", library)); return; }
  if (const nvml::Return rc = handle_by_index(device_index, &nvml_->device); rc != nvml::kSuccess)
    { fail(lib.error("nvmlDeviceGetHandleByIndex_v2", rc)); return; }
  unsigned limit_mw = 0, max_sm = 0;
  if (const nvml::Return rc = nvml_->power_limit(nvml_->device, &limit_mw); rc != nvml::kSuccess)
    { fail(lib.error("nvmlDeviceGetEnforcedPowerLimit", rc)); return; }
  if (const nvml::Return rc = nvml_->max_clock(nvml_->device, NVML_CLOCK_SM, &max_sm);
      rc != nvml::kSuccess)
    { fail(lib.error("nvmlDeviceGetMaxClockInfo", rc)); return; }
  PowerSample probe;
  if (!read(probe)) { fail("a first reading of power, clocks and temperature failed"); return; }
  limit_w_ = limit_mw * 1e-3;
  max_sm_mhz_ = max_sm;
  available_ = true;
  status_ = fmt::format("power: NVML on device {} (limit {:.0f} W, max SM clock {:.0f} MHz)",
                        device_index, limit_w_, max_sm_mhz_);
}

PowerMonitor::~PowerMonitor() { stop(); }

bool PowerMonitor::read(PowerSample& sample) const {
  unsigned power_mw = 0, sm = 0, mem = 0, temp = 0;
  if (nvml_->power_usage(nvml_->device, &power_mw) != nvml::kSuccess) return false;
  if (nvml_->clock(nvml_->device, NVML_CLOCK_SM, &sm) != nvml::kSuccess) return false;
  if (nvml_->clock(nvml_->device, NVML_CLOCK_MEM, &mem) != nvml::kSuccess) return false;
  if (nvml_->temperature(nvml_->device, NVML_TEMPERATURE_GPU, &temp) != nvml::kSuccess) return false;
  sample = {power_mw * 1e-3, double(sm), double(mem), double(temp)};
  return true;
}

void PowerMonitor::sample_loop() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    PowerSample sample;
    const bool ok = read(sample);
    lock.lock();
    if (ok) samples_.push_back(sample);
    wake_.wait_for(lock, kSamplePeriod, [&] { return stopping_; });
  }
}

void PowerMonitor::start() {
  if (!available_ || thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stopping_ = false;
    samples_.clear();
  }
  thread_ = std::thread([this] { sample_loop(); });
}

std::optional<PowerSummary> PowerMonitor::stop() {
  if (!thread_.joinable()) return std::nullopt;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  // One last reading, so that even a run shorter than the period has its end sampled.
  PowerSample last;
  if (read(last)) samples_.push_back(last);
  if (samples_.empty()) return std::nullopt;
  return summarize_power(samples_, limit_w_, max_sm_mhz_);
}

}  // namespace fp4gemm
