#pragma once
// The runs one measurement times (time_gemm, timing.hpp): hot, one run on the case's operands;
// cold, R runs of the same problem, each on its own device copy of the operands, called in turn
// (also inside a captured graph), so that the working set is at least kColdL2Multiple x the L2
// and each call finds its operands in DRAM, as each layer of a model's forward does.
//
//   R = ceil(kColdL2Multiple * L2 bytes / operand bytes of one run)    (>= 1; gemm_bytes)
//   capped by memory: the runs after the first may take kFreeMemoryShare of the device memory
//     free after the first, each costing the first's footprint (measured with cudaMemGetInfo,
//     workspaces included; at least its operand bytes);
//   capped at kMaxRotations (each run holds its own stream, library handle and workspace).
// A cap that leaves the working set under the multiple is said in the note, never silently.
// Host backends are always hot (the L2 rule is the GPU's).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/timing.hpp"
#include "fp4gemm/backend.hpp"

namespace fp4gemm {

inline constexpr double kColdL2Multiple = 3.0;
inline constexpr double kFreeMemoryShare = 0.5;
inline constexpr int kMaxRotations = 256;

struct RotationPlan {
  int count = 1;
  std::string note;  // why the working set stays under kColdL2Multiple x the L2; empty otherwise
};

// R for a cold measurement; `free_bytes` is the device memory free after the first run.
RotationPlan rotation_count(double l2_bytes, double operand_bytes, double footprint_bytes,
                            double free_bytes);

struct RunSet {
  std::vector<std::unique_ptr<GemmRun>> runs;  // runs[r] on operand set r; runs[0] on the case's
  CacheState cache = CacheState::hot;
  double working_set_bytes = 0;                // operand bytes x runs
  std::string note;                            // RotationPlan::note
};

// One run on `operands` (hot, or a host backend), or the cold set: R runs prepared from the same
// operands, each its own device copy (the L2 holds addresses, not values, so R copies are as
// cold as R distinct sets, and the host draws the operands once). `operand_bytes`: gemm_bytes
// of the problem in the backend's encoding.
RunSet prepare_runs(const Backend& backend, const GemmOperands& operands, CacheState cache,
                    double operand_bytes);

// `run` alone, for rows whose operands are not rotated (the grouped bench: all its experts'
// weights are one operand set): cold when `cache` is cold and the set alone is at least
// kColdL2Multiple x the L2 of the current GPU, else hot with a note saying so.
RunSet single_run(std::unique_ptr<GemmRun> run, double operand_bytes, CacheState cache);

}  // namespace fp4gemm
