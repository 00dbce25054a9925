#pragma once
// NVML loaded at run time: dlopen of libnvidia-ml.so.1, nvmlInit_v2 and, on destruction,
// nvmlShutdown and dlclose. No link-time dependency, so the binary starts on machines without
// the driver; every failure is a reason in words, never a crash. Used by PowerMonitor (power
// and clocks while a benchmark runs) and by nvml_driver_version() (the ceilings cache key).
#include <memory>
#include <optional>
#include <string>

namespace fp4gemm {

// The few declarations of NVIDIA's public NVML API (nvml.h) this project uses.
namespace nvml {
using Return = int;  // nvmlReturn_t; NVML_SUCCESS = 0
using Device = void*;  // nvmlDevice_t
inline constexpr Return kSuccess = 0;
}  // namespace nvml

class NvmlLibrary {
 public:
  // The library loaded and initialized, or nothing with `why` set ("libnvidia-ml.so.1: cannot
  // open shared object file: ...", "nvmlInit_v2 failed: Driver Not Loaded").
  static std::unique_ptr<NvmlLibrary> open(const char* library, std::string& why);
  ~NvmlLibrary();
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  // The function `name` as type Fn, or nullptr when the library lacks it.
  template <typename Fn>
  Fn function(const char* name) const {
    return reinterpret_cast<Fn>(symbol(name));
  }
  // "<call> failed: <nvmlErrorString(rc)>".
  std::string error(const char* call, nvml::Return rc) const;

 private:
  explicit NvmlLibrary(void* handle) : handle_(handle) {}
  void* symbol(const char* name) const;

  void* handle_;
  bool initialized_ = false;
};

// The driver's version string ("580.65.06", nvmlSystemGetDriverVersion), or nothing with `why`
// set when NVML is not available.
std::optional<std::string> nvml_driver_version(std::string& why,
                                               const char* library = "libnvidia-ml.so.1");

}  // namespace fp4gemm
