// GPU queries of a build without CUDA: there is never a device, and the reason says why; nor a
// measurement of one (measure_ceilings, run_collective_rank).
#include "bench/ceilings_probe.hpp"
#include "cluster/collective_rank.hpp"
#include "fp4gemm/device.hpp"
#include "fp4gemm/error.hpp"

namespace fp4gemm {

std::vector<GpuInfo> query_gpus(std::string* why_none) {
  if (why_none) *why_none = "this build of fp4gemm has no CUDA support (configured with FP4GEMM_CUDA=OFF)";
  return {};
}

bool cuda_device_present() { return false; }

MeasuredCeilings measure_ceilings(const GpuInfo&, const CeilingsKey&, const CeilingsProbeOptions&) {
  throw Error("fp4gemm ceilings: this build of fp4gemm has no CUDA support (configured with FP4GEMM_CUDA=OFF)");
}

std::vector<CollectiveMeasurement> run_collective_rank(const NcclLibrary&, const nccl::UniqueId&, int, int,
                                                       const CollectivesOptions&) {
  throw Error("fp4gemm collectives: this build of fp4gemm has no CUDA support (configured with FP4GEMM_CUDA=OFF)");
}

GpuMemory current_gpu_memory() { return {}; }

}  // namespace fp4gemm
