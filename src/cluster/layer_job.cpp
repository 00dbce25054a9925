// One rank's layer for `plan --measure` (layer_job.hpp gives the steps and the rank layout).
#include "cluster/layer_job.hpp"

#include <numeric>

#include <fmt/format.h>

#include "fp4gemm/error.hpp"

namespace fp4gemm {
namespace {

// The share of `count` items that source `source` of `sources` sends: count / sources, and one
// more for the first count % sources sources.
std::int64_t share(std::int64_t count, int sources, int source) {
  return count / sources + (source < count % sources ? 1 : 0);
}

bool is_attention(const GemmEntry& e) { return e.kind == GemmKind::attention || e.kind == GemmKind::indexer; }

class StepList {
 public:
  StepList(const RankJob& job, std::uint64_t token_bytes) : job_(job), token_bytes_(token_bytes) {}

  void gemm(const GemmEntry& e, std::vector<std::int64_t> m) {
    LayerStep s;
    s.kind = LayerStepKind::gemm;
    s.name = e.name;
    s.n = e.n;
    s.k = e.k;
    s.fp4 = e.fp4;
    s.m = std::move(m);
    steps_.push_back(std::move(s));
  }
  // An all-reduce or all-gather of the rank's M x hidden activations over its tp group.
  void over_tp(LayerStepKind kind, std::string name) {
    if (job_.plan.tp == 1) return;
    LayerStep s;
    s.kind = kind;
    s.name = std::move(name);
    s.group = RankGroup::tp;
    s.group_size = job_.plan.tp;
    s.bytes = std::uint64_t(job_.gpu_tokens) * token_bytes_;
    steps_.push_back(std::move(s));
  }
  // Routed rows to (send) and from (receive) each rank of the stage; combine swaps them.
  void all_to_all(std::string name, std::vector<std::uint64_t> send, std::vector<std::uint64_t> receive) {
    LayerStep s;
    s.kind = LayerStepKind::all_to_all;
    s.name = std::move(name);
    s.group = RankGroup::stage;
    s.group_size = int(send.size());
    s.send_bytes = std::move(send);
    s.receive_bytes = std::move(receive);
    steps_.push_back(std::move(s));
  }
  void stage_send(std::uint64_t bytes, int stage_gpus) {
    if (job_.plan.pp == 1) return;
    LayerStep s;
    s.kind = LayerStepKind::stage_send;
    s.name = "stage send";
    s.group_size = 2;
    s.bytes = bytes;
    if (job_.stage < job_.plan.pp - 1) s.send_to = job_.rank + stage_gpus;
    if (job_.stage > 0) s.receive_from = job_.rank - stage_gpus;
    steps_.push_back(std::move(s));
  }
  std::vector<LayerStep> take() { return std::move(steps_); }

 private:
  const RankJob& job_;
  std::uint64_t token_bytes_;
  std::vector<LayerStep> steps_;
};

}  // namespace

std::string_view to_string(LayerStepKind kind) {
  switch (kind) {
    case LayerStepKind::gemm: return "gemm";
    case LayerStepKind::all_reduce: return "all_reduce";
    case LayerStepKind::all_gather: return "all_gather";
    case LayerStepKind::all_to_all: return "all_to_all";
    case LayerStepKind::stage_send: return "stage_send";
  }
  return "?";
}

RankJob rank_job(const ModelConfig& model, const ParallelPlan& plan, const Workload& work, int rank) {
  validate_plan(model, plan);
  require(rank >= 0 && rank < plan.gpus(), "rank {} is not one of the {} GPUs of {}", rank, plan.gpus(),
          to_string(plan));
  const int g = plan.stage_gpus();
  const int local = rank % g;
  RankJob job;
  job.plan = plan;
  job.tokens = work.tokens;
  job.rank = rank;
  job.stage = rank / g;
  job.tp_color = job.stage * plan.dp() + local / plan.tp;
  job.ep_rank = local / plan.expert_tp();
  const MicroBatch mb = micro_batch(model, plan, work);
  job.microbatch_tokens = mb.tokens;
  job.gpu_tokens = mb.gpu_tokens;
  const LayerSample sample = sample_layer(model, plan, job.stage);
  job.layer = sample.layer;
  job.mlp = sample.mlp;

  const std::uint64_t token_bytes = std::uint64_t(model.hidden_size) * std::uint64_t(work.activation_bytes);
  const bool dispatch = sample.mlp == MlpKind::moe && plan.dp() > 1;
  // Routed tokens each EP rank's experts receive, and this GPU's experts' counts.
  std::vector<std::int64_t> received(std::size_t(plan.ep), 0);
  std::vector<std::int64_t> own;
  if (!mb.routed.empty()) {
    for (int e = 0; e < plan.ep; ++e) {
      const auto slice = expert_slice(mb.routed, plan.ep, e);
      received[std::size_t(e)] = std::accumulate(slice.begin(), slice.end(), std::int64_t{0});
      if (e == job.ep_rank)
        for (const std::int64_t count : slice)
          if (count > 0) own.push_back(count);
    }
  }

  const std::vector<GemmEntry>& gemms = sample.gemms.gemms;
  std::size_t last_attention = 0, last_routed = gemms.size();
  for (std::size_t i = 0; i < gemms.size(); ++i) {
    if (is_attention(gemms[i])) last_attention = i;
    if (gemms[i].m_source == MSource::routed_tokens) last_routed = i;
  }
  // Dispatch's bytes to and from each GPU of the stage: GPU j (EP rank j; dispatch implies
  // expert_tp = 1) receives its experts' R_j rows, an equal share from each GPU of the stage.
  std::vector<std::uint64_t> to_peer(static_cast<std::size_t>(g)), from_peer(static_cast<std::size_t>(g));
  for (int j = 0; dispatch && j < g; ++j) {
    to_peer[std::size_t(j)] = std::uint64_t(share(received[std::size_t(j)], g, local)) * token_bytes;
    from_peer[std::size_t(j)] = std::uint64_t(share(received[std::size_t(job.ep_rank)], g, j)) * token_bytes;
  }
  StepList steps(job, token_bytes);
  for (std::size_t i = 0; i < gemms.size(); ++i) {
    const GemmEntry& e = gemms[i];
    const bool routed = e.m_source == MSource::routed_tokens;
    if (routed && dispatch && (i == 0 || gemms[i - 1].m_source != MSource::routed_tokens))
      steps.all_to_all("dispatch", to_peer, from_peer);
    steps.gemm(e, routed ? own : std::vector<std::int64_t>(std::size_t(e.per_layer_count), mb.gpu_tokens));
    if (i == last_attention) steps.over_tp(LayerStepKind::all_reduce, "attention all-reduce");
    if (i == last_routed && dispatch) steps.all_to_all("combine", from_peer, to_peer);
  }
  if (dispatch && moe_layer_reduces_over_tp(model))
    steps.over_tp(LayerStepKind::all_reduce, "shared-expert all-reduce");
  else if (dispatch)
    steps.over_tp(LayerStepKind::all_gather, "all-gather");
  else
    steps.over_tp(LayerStepKind::all_reduce, "MLP all-reduce");
  steps.stage_send(std::uint64_t(stage_send_bytes(model, mb, work)), g);
  job.steps = steps.take();
  return job;
}

void require_measurable(const ParallelPlan& plan, int world_size, int visible_gpus) {
  const std::string name = to_string(plan);
  require(plan.gpus() <= visible_gpus, "{} needs {} GPUs, this host has {}", name, plan.gpus(), visible_gpus);
  require(plan.gpus() == world_size, "{} uses {} GPU{}, not the {} of this run (--gpus)", name, plan.gpus(),
          plan.gpus() == 1 ? "" : "s", world_size);
}

}  // namespace fp4gemm
