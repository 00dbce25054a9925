#pragma once
// The roofline of one measurement: how far a measured time is from the least time the hardware
// allows, and a one-line verdict on what bounds it.
//
//   memory floor  = bytes / DRAM bandwidth           (bytes: gemm_bytes, the backend's encoding)
//   compute floor = flops / peak of the backend's compute path (BF16, FP8 or FP4 tensor cores)
//   floor         = max(memory floor, compute floor), efficiency = floor / measured
//
// Verdict, in this order:
//   "no ceiling ..."   the backend computes on the CPU, or the device is not in the table;
//   "launch-bound: 3.1 us against a 0.7 us floor (launch overhead 2.6 us)"   only when the
//       timing keeps launch overhead in (stream or single; a replayed CUDA graph takes it out,
//       so graph timings are never launch-bound), the measured time is within
//       kLaunchBoundMarginSeconds of the launch overhead measured the same way (an empty
//       kernel, measure_launch_overhead), and floor < kLaunchBoundFloorShare * measured: the
//       time is then mostly launch, and a percentage of the floor would say nothing about the
//       kernel;
//   "memory-bound: 83% of the HBM3e floor"   when the memory floor is the larger;
//   "compute-bound: 61% of the BF16 tensor peak"   otherwise.
// A hot-L2 timing of a small operand set can beat the DRAM floor (over 100%), which the verdict
// then says; cold timings rotate operands so that they cannot (run_set.hpp).
#include <string>
#include <string_view>

#include "bench/ceilings.hpp"

namespace fp4gemm {

inline constexpr double kLaunchBoundMarginSeconds = 2e-6;
inline constexpr double kLaunchBoundFloorShare = 0.4;

// The launch overhead in a measured time: none with graph replay (included = false), else the
// per-call time of an empty kernel timed by the same method.
struct LaunchOverhead {
  bool included = false;
  double seconds = 0;
};

struct Roofline {
  double intensity = 0;         // FLOPs per byte
  double memory_floor_s = 0;    // 0: no bandwidth known
  double compute_floor_s = 0;   // 0: no peak known for the compute path
  double floor_s = 0;
  double efficiency = 0;        // floor / measured; 0 without a floor
  std::string verdict;
};

// `measured_s` > 0: the median time of one GEMM.
Roofline roofline(double flops, double bytes, double measured_s, const Ceilings& ceilings,
                  ComputePath path, const LaunchOverhead& launch = {});

// "BF16 tensor", "FP8 tensor", "FP4 tensor" or "CPU".
std::string_view compute_path_name(ComputePath path);

// "83%", "2.4%": how efficiencies are printed in verdicts and tables.
std::string format_percent(double fraction);

}  // namespace fp4gemm
