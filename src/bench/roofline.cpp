// The roofline arithmetic and verdict rules documented in roofline.hpp.
#include "bench/roofline.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace fp4gemm {
namespace {

// The launch-bound rule of roofline.hpp: launch overhead in the time, the time within a few us
// of it, and the floor a small part of the time.
bool launch_bound(const Roofline& r, double measured_s, const LaunchOverhead& launch) {
  return launch.included && measured_s <= launch.seconds + kLaunchBoundMarginSeconds &&
         r.floor_s < kLaunchBoundFloorShare * measured_s;
}

std::string verdict_line(const Roofline& r, double measured_s, const Ceilings& c, ComputePath path,
                         const LaunchOverhead& launch) {
  if (path == ComputePath::cpu) return "no ceiling: fp4gemm has no CPU peaks";
  if (!c.known()) return fmt::format("no ceiling known for {}", c.device);
  if (launch_bound(r, measured_s, launch))
    return fmt::format("launch-bound: {:.1f} us against a {:.1f} us floor (launch overhead {:.1f} us)",
                       measured_s * 1e6, r.floor_s * 1e6, launch.seconds * 1e6);
  if (r.memory_floor_s >= r.compute_floor_s) {
    std::string v = fmt::format("memory-bound: {} of the {} floor", format_percent(r.efficiency), c.memory);
    if (r.efficiency > 1) v += " (over 100%: operands served from cache)";
    if (r.compute_floor_s == 0) v += fmt::format("; no {} peak on this device", compute_path_name(path));
    return v;
  }
  return fmt::format("compute-bound: {} of the {} peak", format_percent(r.efficiency), compute_path_name(path));
}

}  // namespace

std::string_view compute_path_name(ComputePath path) {
  switch (path) {
    case ComputePath::cpu: return "CPU";
    case ComputePath::bf16_tensor: return "BF16 tensor";
    case ComputePath::fp8_tensor: return "FP8 tensor";
    case ComputePath::fp4_tensor: return "FP4 tensor";
  }
  return "";
}

std::string format_percent(double fraction) {
  return fraction >= 0.1 ? fmt::format("{:.0f}%", fraction * 100) : fmt::format("{:.1f}%", fraction * 100);
}

Roofline roofline(double flops, double bytes, double measured_s, const Ceilings& ceilings,
                  ComputePath path, const LaunchOverhead& launch) {
  Roofline r;
  r.intensity = bytes > 0 ? flops / bytes : 0;
  if (path != ComputePath::cpu && ceilings.known()) {
    r.memory_floor_s = bytes / (ceilings.memory_gbps * 1e9);
    const double peak = ceilings.peak_tflops(path);
    r.compute_floor_s = peak > 0 ? flops / (peak * 1e12) : 0;
    r.floor_s = std::max(r.memory_floor_s, r.compute_floor_s);
    r.efficiency = r.floor_s / measured_s;
  }
  r.verdict = verdict_line(r, measured_s, ceilings, path, launch);
  return r;
}

}  // namespace fp4gemm
