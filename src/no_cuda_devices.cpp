// GPU queries of a build without CUDA: there is never a device, and the reason says why; nor a
// measurement of one (measure_ceilings, run_collective_rank, run_measure_rank).
#include <fmt/format.h>

#include "bench/ceilings_probe.hpp"
#include "cluster/collective_rank.hpp"
#include "cluster/layer_measure.hpp"
#include "fp4gemm/device.hpp"
#include "fp4gemm/error.hpp"

namespace fp4gemm {

namespace {

[[noreturn]] void no_cuda(const char* command) {
  throw Error(fmt::format("fp4gemm {}: this build of fp4gemm has no CUDA support (configured with FP4GEMM_CUDA=OFF)",
                          command));
}

}  // namespace

std::vector<GpuInfo> query_gpus(std::string* why_none) {
  if (why_none) *why_none = "this build of fp4gemm has no CUDA support (configured with FP4GEMM_CUDA=OFF)";
  return {};
}

bool cuda_device_present() { return false; }

MeasuredCeilings measure_ceilings(const GpuInfo&, const CeilingsKey&, const CeilingsProbeOptions&) {
  no_cuda("ceilings");
}

std::vector<CollectiveMeasurement> run_collective_rank(const NcclLibrary&, const nccl::UniqueId&, int, int,
                                                       const CollectivesOptions&) {
  no_cuda("collectives");
}

std::vector<CollectiveMeasurement> run_collective_sweep(const NcclLibrary&, const Communicator&, int, int,
                                                        const CollectivesOptions&) {
  no_cuda("collectives");
}

RankReport run_measure_rank(const NcclLibrary&, const nccl::UniqueId&, int, int, const MeasureSettings&,
                            std::span<const LayerCase>) {
  no_cuda("plan --measure");
}

GpuMemory current_gpu_memory() { return {}; }

}  // namespace fp4gemm
