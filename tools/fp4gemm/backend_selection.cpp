#include "backend_selection.hpp"

#include <fmt/format.h>

#include "fp4gemm/device.hpp"
#include "fp4gemm/error.hpp"

namespace fp4gemm::cli {

std::vector<const Backend*> select_backends(const std::vector<std::string>& names,
                                            DefaultBackends default_set) {
  std::vector<const Backend*> chosen;
  if (names.empty() || (names.size() == 1 && names[0] == "all")) {
    const bool all = !names.empty();
    const bool every_device = default_set == DefaultBackends::every_device;
    bool gpu_available = false;
    for (const auto& b : all_backends())
      gpu_available |= b->device() == DeviceKind::cuda && b->availability().ok;
    const DeviceKind best = gpu_available ? DeviceKind::cuda : DeviceKind::cpu;
    for (const auto& b : all_backends()) {
      if (!b->availability().ok) continue;
      const bool default_pick = (every_device || b->device() == best) && b->name() != "cpu-reference" &&
                                !b->only_when_named();
      if (all || default_pick) chosen.push_back(b.get());
    }
    return chosen;
  }
  for (const std::string& name : names) {
    const Backend& b = find_backend(name);
    const Verdict v = b.availability();
    require(v.ok, "--backend {} is not available here: {}", name, v.reason);
    chosen.push_back(&b);
  }
  return chosen;
}

std::string describe_named_only(const std::vector<const Backend*>& backends) {
  std::string text;
  for (const Backend* b : backends)
    if (b->only_when_named()) text += fmt::format("note: {}: {}\n", b->name(), b->summary());
  return text;
}

std::string describe_best_device() {
  const std::vector<GpuInfo> gpus = query_gpus();
  if (!gpus.empty()) {
    const GpuInfo& g = gpus.front();
    return fmt::format("{} (sm_{}{}, {} SMs, driver {})", g.name, g.sm_major, g.sm_minor,
                       g.multiprocessors, g.driver);
  }
  const CpuInfo cpu = query_cpu();
  return fmt::format("{} ({} logical cores, {})", cpu.model, cpu.logical_cores, cpu.simd_in_use);
}

}  // namespace fp4gemm::cli
