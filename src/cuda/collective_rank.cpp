// One rank of `fp4gemm collectives` on its GPU: NCCL communicator, buffers, the timed sweep and
// the check of what was received (see cluster/collective_rank.hpp). Not run on a GPU yet.
#include "cluster/collective_rank.hpp"

#include <cuda_runtime.h>

#include <vector>

#include "cuda/cuda_check.hpp"
#include "cuda/device_buffer.hpp"

namespace fp4gemm {
namespace {

// One collective of `elements` float32 per rank from `send` into `receive`, enqueued on `stream`.
void launch_collective(const NcclLibrary& nccl, CollectiveOp op, const float* send, float* receive,
                       std::uint64_t elements, int world_size, nccl::Comm comm, cudaStream_t stream) {
  const NcclApi& api = nccl.api();
  if (op == CollectiveOp::all_reduce) {
    nccl.check(api.all_reduce(send, receive, elements, nccl::kFloat32, nccl::kSum, comm, stream), "ncclAllReduce");
    return;
  }
  const std::uint64_t per_peer = elements / std::uint64_t(world_size);
  nccl.check(api.group_start(), "ncclGroupStart");
  for (int peer = 0; peer < world_size; ++peer) {
    nccl.check(api.send(send + std::uint64_t(peer) * per_peer, per_peer, nccl::kFloat32, peer, comm, stream),
               "ncclSend");
    nccl.check(api.recv(receive + std::uint64_t(peer) * per_peer, per_peer, nccl::kFloat32, peer, comm, stream),
               "ncclRecv");
  }
  nccl.check(api.group_end(), "ncclGroupEnd");
}

// Whether the first `elements` of `receive` hold what `op` delivers when rank r sent r + 1 everywhere.
bool received_expected(CollectiveOp op, const cuda::DeviceBuffer<float>& receive, std::uint64_t elements,
                       int world_size) {
  std::vector<float> host(elements);
  FP4GEMM_CUDA_CHECK(cudaMemcpy(host.data(), receive.get(), elements * sizeof(float), cudaMemcpyDeviceToHost));
  const std::uint64_t per_peer = elements / std::uint64_t(world_size);
  const float sum = float(world_size) * float(world_size + 1) / 2.0f;
  for (std::uint64_t i = 0; i < elements; ++i) {
    const float expected = op == CollectiveOp::all_reduce ? sum : float(i / per_peer + 1);
    if (host[i] != expected) return false;
  }
  return true;
}

}  // namespace

std::vector<CollectiveMeasurement> run_collective_rank(const NcclLibrary& nccl, const nccl::UniqueId& id, int rank,
                                                       int world_size, const CollectivesOptions& options) {
  FP4GEMM_CUDA_CHECK(cudaSetDevice(rank));
  const Communicator comm(nccl, id, rank, world_size);
  return run_collective_sweep(nccl, comm, rank, world_size, options);
}

std::vector<CollectiveMeasurement> run_collective_sweep(const NcclLibrary& nccl, const Communicator& comm, int rank,
                                                        int world_size, const CollectivesOptions& options) {
  const std::uint64_t max_elements = options.max_bytes / sizeof(float);
  const cuda::DeviceBuffer<float> send(std::vector<float>(max_elements, float(rank + 1)));
  cuda::DeviceBuffer<float> receive(max_elements);
  const cuda::Stream stream;
  cuda::Event start, stop;

  std::vector<CollectiveMeasurement> measurements;
  for (const CollectiveOp op : options.ops) {
    for (const std::uint64_t bytes : message_sizes(options.min_bytes, options.max_bytes, options.factor)) {
      const std::uint64_t elements = collective_elements(op, bytes, world_size);
      if (elements == 0) continue;
      const auto launch = [&] {
        launch_collective(nccl, op, send.get(), receive.get(), elements, world_size, comm.get(), stream.get());
      };
      for (int i = 0; i < options.warmup; ++i) launch();
      start.record(stream.get());
      for (int i = 0; i < options.iters; ++i) launch();
      stop.record(stream.get());
      stream.synchronize();
      const double seconds = double(stop.elapsed_since(start)) * 1e-3 / options.iters;
      measurements.push_back({op, elements * sizeof(float), elements, seconds,
                              received_expected(op, receive, elements, world_size)});
    }
  }
  return measurements;
}

}  // namespace fp4gemm
