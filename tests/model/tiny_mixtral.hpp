#pragma once
// The tests' tiny MoE model, held as text (GPU tests run on machines without the source tree):
// hidden 64, 4 heads of 16, 2 K/V heads, 2 layers, 4 experts of 128, top-2, vocab 1000 (every K a
// multiple of 16). tests/data/model_configs/tiny_moe.json is the same config as a file.
#include "fp4gemm/model.hpp"

namespace fp4gemm::test {

inline ModelConfig tiny_mixtral() {
  return parse_model_config(R"({"model_type": "mixtral", "hidden_size": 64, "num_attention_heads": 4,
      "num_key_value_heads": 2, "intermediate_size": 128, "num_hidden_layers": 2, "vocab_size": 1000,
      "num_local_experts": 4, "num_experts_per_tok": 2})",
                            "tiny mixtral");
}

}  // namespace fp4gemm::test
