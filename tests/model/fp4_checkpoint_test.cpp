// Exclusion-list matching: fnmatch-style globs, applied to a module and its ancestors.
#include <gtest/gtest.h>

#include "fp4gemm/model.hpp"
#include "model/fp4_checkpoint.hpp"

namespace fp4gemm {
namespace {

using model_detail::glob_match;

TEST(GlobMatch, Wildcards) {
  EXPECT_TRUE(glob_match("lm_head", "lm_head"));
  EXPECT_FALSE(glob_match("lm_head", "lm_head2"));
  EXPECT_TRUE(glob_match("*lm_head*", "lm_head"));
  EXPECT_TRUE(glob_match("model.layers.78*", "model.layers.78.self_attn.o_proj"));
  EXPECT_FALSE(glob_match("model.layers.78*", "model.layers.7.self_attn.o_proj"));
  EXPECT_TRUE(glob_match("model.layers.*.self_attn", "model.layers.12.self_attn"));
  EXPECT_TRUE(glob_match("a?c", "abc"));
  EXPECT_FALSE(glob_match("a?c", "ac"));
  EXPECT_TRUE(glob_match("*", ""));
  EXPECT_FALSE(glob_match("", "a"));
  EXPECT_TRUE(glob_match("*a*b", "xaxxb"));  // needs backtracking past the first 'a'
  EXPECT_FALSE(glob_match("*a*b", "xaxxbc"));
}

TEST(Fp4Checkpoint, AncestorsAreExcludedToo) {
  const Fp4Checkpoint c{Fp4Format::mxfp4, {"model.layers.*.self_attn", "lm_head"}, "test"};
  EXPECT_FALSE(c.quantizes("model.layers.3.self_attn.q_proj"));
  EXPECT_FALSE(c.quantizes("lm_head"));
  EXPECT_TRUE(c.quantizes("model.layers.3.mlp.experts.gate_up_proj"));
  EXPECT_TRUE(c.quantizes("model.layers.3.self_attention_gate"));  // not a descendant
}

TEST(Fp4Checkpoint, DefaultLeavesLmHeadAndMtpLayers) {
  ModelConfig m;
  m.layers.assign(61, MlpKind::moe);
  m.mtp_layers = 1;
  const Fp4Checkpoint c = default_fp4_checkpoint(m);
  EXPECT_FALSE(c.quantizes("lm_head"));
  EXPECT_FALSE(c.quantizes("model.layers.61.eh_proj"));
  EXPECT_TRUE(c.quantizes("model.layers.60.mlp.experts.0.down_proj"));
  EXPECT_TRUE(c.quantizes("model.layers.610.mlp.experts.0.down_proj"));  // only layer 61 itself
}

}  // namespace
}  // namespace fp4gemm
