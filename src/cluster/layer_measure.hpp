#pragma once
// `fp4gemm plan --measure` across its processes: what every rank is given (the settings and, per
// plan and batch, every rank's job), what each rank reports (the collectives sweep for the link
// calibration, then per layer the time of each step, whether the GEMM outputs were sane, and
// each distinct GEMM timed alone), and the merge over the ranks. The per-rank GPU work is
// src/cuda/layer_rank.cpp (a build without CUDA throws); the rest is CPU code, tested there.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/collective_math.hpp"
#include "cluster/layer_job.hpp"
#include "cluster/nccl_library.hpp"
#include "fp4gemm/gemm.hpp"

namespace fp4gemm {

struct MeasureSettings {
  // The sweep before the layers (sizes, iters, warmup; timeout_seconds bounds the whole run).
  CollectivesOptions sweep;
  std::string backend = "auto";  // a GPU backend, as find_backend names it
  Mode mode = Mode::w4a16;
  std::uint64_t seed = 1;
  int iters = 20, warmup = 5;  // layer iterations
};

// One plan at one batch: every rank's job, by rank (all of them, so that each rank knows which
// communicators the others split).
struct LayerCase {
  std::vector<RankJob> ranks;
  const RankJob& job(int rank) const { return ranks.at(std::size_t(rank)); }
};
// The cases of `plans` x `batches` (plan-major), every rank's job built by rank_job.
std::vector<LayerCase> layer_cases(const ModelConfig& model, std::span<const ParallelPlan> plans,
                                   std::span<const std::int64_t> batches, const Workload& work);

// One step of a rank's layer: its mean time per layer over the timed iterations; for GEMM steps
// also the kernel (auto's choice) and whether every output was finite and not all zero.
struct StepTime {
  double seconds = 0;
  bool outputs_ok = true;
  std::string kernel;
};
// A GEMM timed alone on this rank (iters back-to-back calls of one prepared run).
struct IsolatedGemm {
  GemmCall call;
  double seconds = 0;
};
struct RankCaseReport {
  std::vector<StepTime> steps;  // one per job step
  std::vector<IsolatedGemm> isolated;
};
struct RankReport {
  std::string device;  // "NVIDIA H200 (PCI 0000:19:00.0)"
  std::vector<CollectiveMeasurement> sweep;
  std::vector<RankCaseReport> cases;  // one per LayerCase
};
// The bytes a rank sends up its pipe, and back (Error naming the rank when they do not parse).
std::string to_payload(const RankReport& report);
RankReport rank_report_from_payload(std::string_view payload, int rank);

// One layer of one case, merged over the ranks: the split of the slowest rank (the largest sum of
// its steps' times); the GEMMs' outputs sane on every rank.
struct LayerMeasurement {
  int slowest_rank = 0;
  double gemm_s = 0, comm_s = 0, send_s = 0;  // collectives within the layer; the stage send
  double total_s() const { return gemm_s + comm_s + send_s; }
  std::vector<double> rank_total_s;
  bool outputs_ok = true;
};
// Error when a rank reported another number of steps than its job has.
LayerMeasurement merge_layer(const LayerCase& layer_case, std::span<const RankReport> reports, std::size_t case_index);

// Every GEMM the ranks timed alone in case `case_index`, the slowest rank's time of each shape:
// the GEMM times of the prediction.
GemmTimeTable isolated_gemm_times(std::span<const RankReport> reports, std::size_t case_index);

// Rank `rank`'s process: device `rank`, the world communicator from `id`, the sweep, then each
// case: communicators split for its groups, the GEMMs prepared on settings.backend from seeded
// random operands (each call its own weights on the device), settings.warmup untimed layers,
// settings.iters layers with a CUDA event between steps, the outputs checked, and each distinct
// GEMM timed alone. Implemented in src/cuda/layer_rank.cpp.
RankReport run_measure_rank(const NcclLibrary& nccl, const nccl::UniqueId& id, int rank, int world_size,
                            const MeasureSettings& settings, std::span<const LayerCase> cases);

// The ranks, one process per GPU (rank_launcher.hpp), and their reports by rank.
std::vector<RankReport> measure_layers(const MeasureSettings& settings, std::span<const LayerCase> cases,
                                       int world_size);

}  // namespace fp4gemm
