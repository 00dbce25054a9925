#include "bench/nvml_library.hpp"

#include <dlfcn.h>

#include <array>

#include <fmt/format.h>

namespace fp4gemm {
namespace {

using InitFn = nvml::Return (*)();
using ShutdownFn = nvml::Return (*)();
using ErrorStringFn = const char* (*)(nvml::Return);
using DriverVersionFn = nvml::Return (*)(char*, unsigned);
// NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE (nvml.h).
constexpr unsigned kDriverVersionBufferSize = 80;

}  // namespace

std::unique_ptr<NvmlLibrary> NvmlLibrary::open(const char* library, std::string& why) {
  dlerror();
  void* handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* error = dlerror();
    why = error ? error : fmt::format("{}: cannot be loaded", library);
    return nullptr;
  }
  std::unique_ptr<NvmlLibrary> nvml(new NvmlLibrary(handle));
  const auto init = nvml->function<InitFn>("nvmlInit_v2");
  if (!init || !nvml->symbol("nvmlShutdown")) {
    why = fmt::format("{} lacks nvmlInit_v2 or nvmlShutdown", library);
    return nullptr;
  }
  if (const nvml::Return rc = init(); rc != nvml::kSuccess) {
    why = nvml->error("nvmlInit_v2", rc);
    return nullptr;
  }
  nvml->initialized_ = true;
  return nvml;
}

NvmlLibrary::~NvmlLibrary() {
  if (initialized_) function<ShutdownFn>("nvmlShutdown")();
  dlclose(handle_);
}

void* NvmlLibrary::symbol(const char* name) const { return dlsym(handle_, name); }

std::string NvmlLibrary::error(const char* call, nvml::Return rc) const {
  const auto error_string = function<ErrorStringFn>("nvmlErrorString");
  const char* text = error_string ? error_string(rc) : nullptr;
  return fmt::format("{} failed: {}", call, text ? text : fmt::format("error {}", rc));
}

std::optional<std::string> nvml_driver_version(std::string& why, const char* library) {
  const std::unique_ptr<NvmlLibrary> nvml = NvmlLibrary::open(library, why);
  if (!nvml) return std::nullopt;
  const auto driver_version = nvml->function<DriverVersionFn>("nvmlSystemGetDriverVersion");
  if (!driver_version) {
    why = fmt::format("{} lacks nvmlSystemGetDriverVersion", library);
    return std::nullopt;
  }
  std::array<char, kDriverVersionBufferSize> buffer{};
  if (const nvml::Return rc = driver_version(buffer.data(), unsigned(buffer.size())); rc != nvml::kSuccess) {
    why = nvml->error("nvmlSystemGetDriverVersion", rc);
    return std::nullopt;
  }
  return std::string(buffer.data());
}

}  // namespace fp4gemm
