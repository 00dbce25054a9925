// Per-forward GEMM totals on a tiny MoE model, every number worked out by hand.
#include <gtest/gtest.h>

#include "model/tiny_mixtral.hpp"

#include "fp4gemm/error.hpp"
#include "model/forward_breakdown.hpp"

namespace fp4gemm {
namespace {

using test::tiny_mixtral;

// 1 ps per multiply-add.
double mnk_timer(const GemmCall& c) { return 1e-12 * double(c.shape.m * c.shape.n * c.shape.k); }

const GemmTotal& find(const StageBreakdown& st, std::int64_t n, std::int64_t k) {
  for (const GemmTotal& g : st.gemms)
    if (g.entry.n == n && g.entry.k == k) return g;
  throw std::runtime_error("no such GEMM");
}

TEST(ForwardBreakdown, TensorParallelTotalsByHand) {
  // tp2, T = 8, balanced routing: 8 * 2 / 4 = 4 tokens per expert, all 4 experts on the GPU,
  // each split 2 ways. qkv 8 x 64 x 64 = 32768 ps per layer, 2 layers -> 65536; o_proj
  // 8 x 64 x 32 -> 16384, 32768; gate_up 4 experts x 4 x 128 x 64 = 131072, 262144; down
  // 4 x 4 x 64 x 64 = 65536, 131072; lm_head 8 x 500 x 64 = 256000 once. Forward 747520 ps.
  const auto stages = forward_breakdown(tiny_mixtral(), {2, 1, 1}, {8, {}, 0}, mnk_timer);
  ASSERT_EQ(stages.size(), 1u);
  const StageBreakdown& st = stages[0];
  EXPECT_DOUBLE_EQ(find(st, 64, 64).forward_s + find(st, 64, 32).forward_s, (65536 + 32768) * 1e-12);
  const GemmTotal& gate_up = find(st, 128, 64);
  EXPECT_EQ(gate_up.m, (std::vector<std::int64_t>{4, 4, 4, 4}));
  EXPECT_DOUBLE_EQ(gate_up.per_layer_s, 131072e-12);
  EXPECT_DOUBLE_EQ(gate_up.forward_s, 262144e-12);
  EXPECT_DOUBLE_EQ(find(st, 500, 64).forward_s, 256000e-12);
  EXPECT_DOUBLE_EQ(st.forward_s, 747520e-12);
  EXPECT_DOUBLE_EQ(gate_up.share, 262144.0 / 747520.0);
}

TEST(ForwardBreakdown, ListsTheSlowestExpertRankAndSkipsEmptyExperts) {
  // tp1 ep2 (2 attention replicas): T = 1 token picks 2 of 4 experts (balanced: experts 0 and 1,
  // both on rank 0); rank 1 has no token, so its experts are skipped and rank 0 is listed.
  const auto stages = forward_breakdown(tiny_mixtral(), {1, 1, 2}, {1, {}, 0}, mnk_timer);
  EXPECT_EQ(stages[0].expert_rank, 0);
  const GemmTotal& gate_up = find(stages[0], 256, 64);
  EXPECT_EQ(gate_up.m, (std::vector<std::int64_t>{1, 1}));
  EXPECT_DOUBLE_EQ(gate_up.per_layer_s, 2 * 256 * 64 * 1e-12);
  // Distinct calls: the expert GEMMs once each at M = 1.
  int expert_calls = 0;
  for (const GemmCall& c : forward_gemm_calls(tiny_mixtral(), {1, 1, 2}, {1, {}, 0})) expert_calls += c.shape.n == 256;
  EXPECT_EQ(expert_calls, 1);
}

TEST(ForwardBreakdown, RejectsAnEmptyBatch) {
  EXPECT_THROW(forward_breakdown(tiny_mixtral(), {2, 1, 1}, {0, {}, 0}, mnk_timer), InvalidArgument);
}

}  // namespace
}  // namespace fp4gemm
