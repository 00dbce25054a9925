// One rank of `fp4gemm plan --measure` on its GPU (cluster/layer_measure.hpp): the collectives
// sweep, then each case's layer (cluster/layer_job.hpp) with real GEMMs and real NCCL collectives
// on one stream, timed with CUDA events between the steps.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "cluster/collective_rank.hpp"
#include "cluster/layer_measure.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device_buffer.hpp"
#include "fp4gemm/backend.hpp"

namespace fp4gemm {
namespace {

// Host operands of the layer's GEMMs: one weight tensor per (N, K), drawn once per process, and
// activations per (M, K); every prepare() uploads its own copy of the weights, so that no two
// calls of a layer (experts above all) read the same weight bytes from L2.
class OperandSource {
 public:
  OperandSource(Mode mode, std::uint64_t seed) : mode_(mode), seed_(seed) {}

  const GemmOperands& operands(std::int64_t m, std::int64_t n, std::int64_t k) {
    const auto key = std::tuple{m, n, k};
    if (auto it = operands_.find(key); it != operands_.end()) return it->second;
    auto w = weights_.find({n, k});
    if (w == weights_.end())
      w = weights_.emplace(std::pair{n, k}, random_weights(n, k, Fp4Format::nvfp4, ScaleLayout::linear, seed_)).first;
    const GemmProblem problem{{m, n, k}, mode_, Fp4Format::nvfp4, ScaleLayout::linear, DType::bf16};
    return operands_.emplace(key, random_operands(problem, seed_ + std::uint64_t(m), w->second)).first->second;
  }
  // Activations of the case done: release them (the weights stay for the next case).
  void end_case() { operands_.clear(); }

 private:
  Mode mode_;
  std::uint64_t seed_;
  std::map<std::pair<std::int64_t, std::int64_t>, Fp4Tensor> weights_;
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, GemmOperands> operands_;
};

// The communicators a plan's collectives run on: the tp group's and the stage's, split from the
// world once per plan (every rank splits the same ones, in the same order).
struct PlanComms {
  std::unique_ptr<Communicator> tp, stage;
};

bool any_step_in(const LayerCase& c, RankGroup group) {
  for (const RankJob& job : c.ranks)
    for (const LayerStep& s : job.steps)
      if (s.is_collective() && s.kind != LayerStepKind::stage_send && s.group == group) return true;
  return false;
}

std::string device_description(int device) {
  cudaDeviceProp p{};
  FP4GEMM_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  char bus[32] = {};
  FP4GEMM_CUDA_CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, device));
  return fmt::format("{} (PCI {})", p.name, bus);
}

// The bytes a collective step needs in its send and its receive buffer.
std::pair<std::uint64_t, std::uint64_t> buffer_bytes(const LayerStep& s) {
  std::uint64_t send = 0, receive = 0;
  switch (s.kind) {
    case LayerStepKind::all_to_all:
      for (const std::uint64_t b : s.send_bytes) send += b;
      for (const std::uint64_t b : s.receive_bytes) receive += b;
      break;
    case LayerStepKind::all_gather: {
      const std::uint64_t per_rank = (s.bytes / 2 + std::uint64_t(s.group_size) - 1) / std::uint64_t(s.group_size) * 2;
      send = per_rank;
      receive = per_rank * std::uint64_t(s.group_size);
      break;
    }
    default: send = receive = s.bytes;
  }
  return {send, receive};
}

// One case on this rank: its runs, its buffers, and the timed layer.
class LayerRunner {
 public:
  LayerRunner(const NcclLibrary& nccl, const RankJob& job, const Communicator& world, const PlanComms& comms,
              const Backend& backend, OperandSource& operands)
      : nccl_(nccl), job_(job), world_(world), comms_(comms) {
    std::uint64_t send = 0, receive = 0;
    for (const LayerStep& s : job.steps) {
      std::vector<std::unique_ptr<GemmRun>>& runs = runs_.emplace_back();
      std::string& kernel = kernels_.emplace_back();
      if (s.kind != LayerStepKind::gemm) {
        const auto [step_send, step_receive] = buffer_bytes(s);
        send = std::max(send, step_send);
        receive = std::max(receive, step_receive);
        continue;
      }
      for (const std::int64_t m : s.m) {
        const GemmOperands& ops = operands.operands(m, s.n, s.k);
        const Verdict verdict = backend.can_implement(ops.problem);
        if (!verdict)
          throw Error(fmt::format("{} cannot run {} ({}): {}", backend.name(), s.name, ops.problem.describe(),
                                  verdict.reason));
        if (kernel.empty()) {
          const std::optional<Dispatch> d = backend.dispatch(ops.problem);
          kernel = d ? d->chosen : std::string(backend.name());
        }
        runs.push_back(backend.prepare(ops));
        runs.back()->synchronize();  // what prepare() enqueued on the run's own stream
        runs.back()->bind_cuda_stream(stream_.get());
      }
    }
    send_ = cuda::DeviceBuffer<std::uint8_t>(send);
    receive_ = cuda::DeviceBuffer<std::uint8_t>(receive);
    send_.fill_bytes(0, stream_.get());
    receive_.fill_bytes(0, stream_.get());
  }

  std::size_t gemm_runs() const {
    std::size_t n = 0;
    for (const auto& runs : runs_) n += runs.size();
    return n;
  }

  // warmup untimed layers, then iters layers with an event between every two steps.
  RankCaseReport measure(int warmup, int iters) {
    for (int i = 0; i < warmup; ++i) layer(nullptr);
    const std::size_t boundaries = job_.steps.size() + 1;
    std::vector<cuda::Event> events(boundaries * std::size_t(iters));
    for (int i = 0; i < iters; ++i) layer(&events[std::size_t(i) * boundaries]);
    stream_.synchronize();
    RankCaseReport report;
    for (std::size_t s = 0; s < job_.steps.size(); ++s) {
      double ms = 0;
      for (int i = 0; i < iters; ++i) {
        const cuda::Event* e = &events[std::size_t(i) * boundaries];
        ms += e[s + 1].elapsed_since(e[s]);
      }
      report.steps.push_back({ms * 1e-3 / iters, outputs_sane(s), kernels_[s]});
    }
    report.isolated = isolated(warmup, iters);
    return report;
  }

 private:
  void layer(cuda::Event* events) {
    if (events) events[0].record(stream_.get());
    for (std::size_t s = 0; s < job_.steps.size(); ++s) {
      step(s);
      if (events) events[s + 1].record(stream_.get());
    }
  }

  void step(std::size_t index) {
    const LayerStep& s = job_.steps[index];
    const NcclApi& api = nccl_.api();
    void* stream = stream_.get();
    std::uint8_t* send = send_.get();
    std::uint8_t* receive = receive_.get();
    switch (s.kind) {
      case LayerStepKind::gemm:
        for (const std::unique_ptr<GemmRun>& run : runs_[index]) run->run();
        return;
      case LayerStepKind::all_reduce:
        nccl_.check(api.all_reduce(send, receive, s.bytes / 2, nccl::kBfloat16, nccl::kSum, comm(s).get(), stream),
                    "ncclAllReduce");
        return;
      case LayerStepKind::all_gather:
        nccl_.check(api.all_gather(send, receive, buffer_bytes(s).first / 2, nccl::kBfloat16, comm(s).get(), stream),
                    "ncclAllGather");
        return;
      case LayerStepKind::all_to_all: {
        nccl_.check(api.group_start(), "ncclGroupStart");
        std::uint64_t sent = 0, received = 0;
        for (int peer = 0; peer < s.group_size; ++peer) {
          const std::uint64_t out = s.send_bytes[std::size_t(peer)], in = s.receive_bytes[std::size_t(peer)];
          if (out > 0)
            nccl_.check(api.send(send + sent, out / 2, nccl::kBfloat16, peer, comm(s).get(), stream), "ncclSend");
          if (in > 0)
            nccl_.check(api.recv(receive + received, in / 2, nccl::kBfloat16, peer, comm(s).get(), stream),
                        "ncclRecv");
          sent += out;
          received += in;
        }
        nccl_.check(api.group_end(), "ncclGroupEnd");
        return;
      }
      case LayerStepKind::stage_send:
        nccl_.check(api.group_start(), "ncclGroupStart");
        if (s.send_to >= 0)
          nccl_.check(api.send(send, s.bytes / 2, nccl::kBfloat16, s.send_to, world_.get(), stream), "ncclSend");
        if (s.receive_from >= 0)
          nccl_.check(api.recv(receive, s.bytes / 2, nccl::kBfloat16, s.receive_from, world_.get(), stream),
                      "ncclRecv");
        nccl_.check(api.group_end(), "ncclGroupEnd");
        return;
    }
  }

  const Communicator& comm(const LayerStep& s) const {
    const std::unique_ptr<Communicator>& c = s.group == RankGroup::tp ? comms_.tp : comms_.stage;
    return c ? *c : world_;
  }

  // Every output of step `index` finite and not all zero (the random operands make a zero
  // output a failure: the seed's "returns all zeros" bug).
  bool outputs_sane(std::size_t index) {
    for (const std::unique_ptr<GemmRun>& run : runs_[index]) {
      const std::vector<float> out = run->output();
      bool nonzero = false;
      for (const float v : out) {
        if (!std::isfinite(v)) return false;
        nonzero = nonzero || v != 0.0f;
      }
      if (!nonzero) return false;
    }
    return true;
  }

  // Each distinct GEMM alone: its first run, warmup calls, then iters back-to-back calls
  // between two events.
  std::vector<IsolatedGemm> isolated(int warmup, int iters) {
    std::vector<IsolatedGemm> out;
    std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, bool>, bool> seen;
    cuda::Event start, stop;
    for (std::size_t s = 0; s < job_.steps.size(); ++s) {
      const LayerStep& step = job_.steps[s];
      for (std::size_t r = 0; r < runs_[s].size(); ++r) {
        if (!seen.emplace(std::tuple{step.m[r], step.n, step.k, step.fp4}, true).second) continue;
        GemmRun& run = *runs_[s][r];
        for (int i = 0; i < warmup; ++i) run.run();
        start.record(stream_.get());
        for (int i = 0; i < iters; ++i) run.run();
        stop.record(stream_.get());
        stream_.synchronize();
        out.push_back({{{step.m[r], step.n, step.k}, step.fp4}, double(stop.elapsed_since(start)) * 1e-3 / iters});
      }
    }
    return out;
  }

  const NcclLibrary& nccl_;
  const RankJob& job_;
  const Communicator& world_;
  const PlanComms& comms_;
  cuda::Stream stream_;  // before the runs: they are bound to it, and destroyed first
  std::vector<std::vector<std::unique_ptr<GemmRun>>> runs_;  // per step
  std::vector<std::string> kernels_;                          // per step
  cuda::DeviceBuffer<std::uint8_t> send_, receive_;
};

}  // namespace

RankReport run_measure_rank(const NcclLibrary& nccl, const nccl::UniqueId& id, int rank, int world_size,
                            const MeasureSettings& settings, std::span<const LayerCase> cases) {
  FP4GEMM_CUDA_CHECK(cudaSetDevice(rank));
  const Backend& backend = find_backend(settings.backend);
  require(backend.device() == DeviceKind::cuda, "plan --measure runs GPU backends; {} computes on the CPU",
          backend.name());
  const Verdict available = backend.availability();
  if (!available) throw Error(fmt::format("{} is not available on GPU {}: {}", backend.name(), rank, available.reason));
  const Communicator world(nccl, id, rank, world_size);
  RankReport report;
  report.device = device_description(rank);
  using Clock = std::chrono::steady_clock;
  const auto seconds_since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
  // Rank 0's progress on stderr (the other ranks run the same steps): what a long run is doing,
  // and where a --timeout ended it.
  const auto progress = [&](const std::string& line) {
    if (rank != 0) return;
    fmt::print(stderr, "plan --measure: rank 0: {}\n", line);
    std::fflush(stderr);
  };
  Clock::time_point start = Clock::now();
  report.sweep = run_collective_sweep(nccl, world, rank, world_size, settings.sweep);
  progress(fmt::format("collectives sweep done in {:.1f} s", seconds_since(start)));

  OperandSource operands(settings.mode, settings.seed);
  std::map<std::string, PlanComms> comms;  // by plan
  for (const LayerCase& c : cases) {
    const RankJob& job = c.job(rank);
    auto [it, fresh] = comms.try_emplace(to_string(job.plan));
    if (fresh) {
      if (any_step_in(c, RankGroup::tp)) it->second.tp = world.split(job.tp_color, rank);
      if (any_step_in(c, RankGroup::stage) && job.plan.pp > 1) it->second.stage = world.split(job.stage, rank);
    }
    {
      start = Clock::now();
      LayerRunner runner(nccl, job, world, it->second, backend, operands);
      const double prepared_s = seconds_since(start);
      start = Clock::now();
      report.cases.push_back(runner.measure(settings.warmup, settings.iters));
      progress(fmt::format("{} batch {}: {} GEMM runs prepared in {:.1f} s, layer measured in {:.1f} s",
                           to_string(job.plan), job.tokens, runner.gemm_runs(), prepared_s, seconds_since(start)));
    }
    operands.end_case();
  }
  comms.clear();  // the split communicators before the world's
  return report;
}

}  // namespace fp4gemm
