#include "bench/power_monitor.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

namespace fp4gemm {
namespace {

// The few declarations of NVIDIA's public NVML API (nvml.h) this module uses.
using nvmlReturn_t = int;  // NVML_SUCCESS = 0
using nvmlDevice_t = void*;
constexpr nvmlReturn_t NVML_SUCCESS = 0;
constexpr int NVML_CLOCK_SM = 1;         // nvmlClockType_t
constexpr int NVML_CLOCK_MEM = 2;
constexpr int NVML_TEMPERATURE_GPU = 0;  // nvmlTemperatureSensors_t
using InitFn = nvmlReturn_t (*)();
using ShutdownFn = nvmlReturn_t (*)();
using ErrorStringFn = const char* (*)(nvmlReturn_t);
using HandleByIndexFn = nvmlReturn_t (*)(unsigned, nvmlDevice_t*);
using UintFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned*);             // power usage/limit, mW
using ClockFn = nvmlReturn_t (*)(nvmlDevice_t, int, unsigned*);       // clocks MHz, temp C

constexpr auto kSamplePeriod = std::chrono::milliseconds(5);

}  // namespace

struct PowerMonitor::Nvml {
  void* library = nullptr;
  bool initialized = false;
  ShutdownFn shutdown = nullptr;
  ErrorStringFn error_string = nullptr;
  UintFn power_usage = nullptr;
  UintFn power_limit = nullptr;
  ClockFn clock = nullptr;
  ClockFn max_clock = nullptr;
  ClockFn temperature = nullptr;
  nvmlDevice_t device = nullptr;

  std::string error(const char* call, nvmlReturn_t rc) const {
    const char* text = error_string ? error_string(rc) : nullptr;
    return fmt::format("{} failed: {}", call, text ? text : fmt::format("error {}", rc));
  }
  ~Nvml() {
    if (initialized && shutdown) shutdown();
    if (library) dlclose(library);
  }
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
  dlerror();
  nvml_->library = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!nvml_->library) {
    const char* why = dlerror();
    { fail(why ? why : fmt::format("{}: cannot be loaded", library)); return; }
  }
  auto symbol = [&](const char* name) { return dlsym(nvml_->library, name); };
  auto init = reinterpret_cast<InitFn>(symbol("nvmlInit_v2"));
  auto handle_by_index = reinterpret_cast<HandleByIndexFn>(symbol("nvmlDeviceGetHandleByIndex_v2"));
  nvml_->shutdown = reinterpret_cast<ShutdownFn>(symbol("nvmlShutdown"));
  nvml_->error_string = reinterpret_cast<ErrorStringFn>(symbol("nvmlErrorString"));
  nvml_->power_usage = reinterpret_cast<UintFn>(symbol("nvmlDeviceGetPowerUsage"));
  nvml_->power_limit = reinterpret_cast<UintFn>(symbol("nvmlDeviceGetEnforcedPowerLimit"));
  nvml_->clock = reinterpret_cast<ClockFn>(symbol("nvmlDeviceGetClockInfo"));
  nvml_->max_clock = reinterpret_cast<ClockFn>(symbol("nvmlDeviceGetMaxClockInfo"));
  nvml_->temperature = reinterpret_cast<ClockFn>(symbol("nvmlDeviceGetTemperature"));
  if (!init || !handle_by_index || !nvml_->shutdown || !nvml_->power_usage ||
      !nvml_->power_limit || !nvml_->clock || !nvml_->max_clock || !nvml_->temperature)
    { fail(fmt::format("{} lacks an NVML function this module needs", library)); return; }
  if (const nvmlReturn_t rc = init(); rc != NVML_SUCCESS) { fail(nvml_->error("nvmlInit_v2", rc)); return; }
  nvml_->initialized = true;
  if (const nvmlReturn_t rc = handle_by_index(device_index, &nvml_->device); rc != NVML_SUCCESS)
    { fail(nvml_->error("nvmlDeviceGetHandleByIndex_v2", rc)); return; }
  unsigned limit_mw = 0, max_sm = 0;
  if (const nvmlReturn_t rc = nvml_->power_limit(nvml_->device, &limit_mw); rc != NVML_SUCCESS)
    { fail(nvml_->error("nvmlDeviceGetEnforcedPowerLimit", rc)); return; }
  if (const nvmlReturn_t rc = nvml_->max_clock(nvml_->device, NVML_CLOCK_SM, &max_sm);
      rc != NVML_SUCCESS)
    { fail(nvml_->error("nvmlDeviceGetMaxClockInfo", rc)); return; }
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
  if (nvml_->power_usage(nvml_->device, &power_mw) != NVML_SUCCESS) return false;
  if (nvml_->clock(nvml_->device, NVML_CLOCK_SM, &sm) != NVML_SUCCESS) return false;
  if (nvml_->clock(nvml_->device, NVML_CLOCK_MEM, &mem) != NVML_SUCCESS) return false;
  if (nvml_->temperature(nvml_->device, NVML_TEMPERATURE_GPU, &temp) != NVML_SUCCESS) return false;
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
