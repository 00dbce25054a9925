// Malformed configs are rejected with the source, the field and the rule named.
#include <functional>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fp4gemm/error.hpp"
#include "fp4gemm/model.hpp"
#include "model_test_support.hpp"

namespace fp4gemm {
namespace {

// A real config with `edit` applied.
std::string edited(std::string_view file, const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json j = nlohmann::json::parse(test::read_text(test::preset_config_path(file)));
  edit(j);
  return j.dump();
}

// The message of the InvalidArgument that parsing `text` throws ("" if none is thrown).
std::string rejection(const std::string& text) {
  try {
    parse_model_config(text, "config.json");
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}

TEST(ModelConfigErrors, MissingField) {
  EXPECT_EQ(rejection(edited("glm5.json", [](auto& j) { j.erase("moe_intermediate_size"); })),
            "config.json: field 'moe_intermediate_size' is missing (needed for glm_moe_dsa)");
  EXPECT_EQ(rejection(edited("llama31.json", [](auto& j) { j["intermediate_size"] = nullptr; })),
            "config.json: field 'intermediate_size' is missing (needed for llama)");
  EXPECT_EQ(rejection(edited("mixtral.json", [](auto& j) { j.erase("model_type"); })),
            "config.json: field 'model_type' is missing (needed for every model)");
  // head_dim: required where transformers' default is a constant, not hidden_size / heads.
  EXPECT_EQ(rejection(edited("qwen3_32b.json", [](auto& j) { j.erase("head_dim"); })),
            "config.json: field 'head_dim' is missing (needed for qwen3)");
  EXPECT_EQ(rejection(edited("gpt_oss_120b.json", [](auto& j) { j.erase("head_dim"); })),
            "config.json: field 'head_dim' is missing (needed for gpt_oss)");
  EXPECT_EQ(rejection(edited("glm45.json", [](auto& j) { j.erase("head_dim"); })),
            "config.json: field 'head_dim' is missing (needed for glm4_moe)");
  EXPECT_EQ(rejection(edited("llama31.json", [](auto& j) { j.erase("head_dim"); })), "");  // derived
}

TEST(ModelConfigErrors, WrongType) {
  EXPECT_EQ(rejection(edited("glm5.json", [](auto& j) { j["hidden_size"] = "6144"; })),
            "config.json: field 'hidden_size' must be a positive integer, got \"6144\" (string)");
  EXPECT_EQ(rejection(edited("qwen3_moe.json", [](auto& j) { j["num_experts"] = 128.5; })),
            "config.json: field 'num_experts' must be a positive integer, got 128.5 (number)");
  EXPECT_EQ(rejection(edited("qwen3_moe.json", [](auto& j) { j["mlp_only_layers"] = 3; })),
            "config.json: field 'mlp_only_layers' must be an array of non-negative integers, got 3 (number)");
  EXPECT_EQ(rejection(edited("gpt_oss_120b.json", [](auto& j) { j["model_type"] = 7; })),
            "config.json: field 'model_type' must be a string, got 7 (number)");
}

TEST(ModelConfigErrors, OutOfRange) {
  EXPECT_EQ(rejection(edited("llama31_8b.json", [](auto& j) { j["num_hidden_layers"] = 0; })),
            "config.json: field 'num_hidden_layers' must be a positive integer, got 0");
  EXPECT_EQ(rejection(edited("deepseek_v3.json", [](auto& j) { j["first_k_dense_replace"] = -1; })),
            "config.json: field 'first_k_dense_replace' must be a non-negative integer, got -1");
  EXPECT_EQ(rejection(edited("mixtral.json", [](auto& j) { j["num_experts_per_tok"] = 9; })),
            "config.json: field 'num_experts_per_tok' = 9 exceeds the 8 routed experts ('num_local_experts')");
  EXPECT_EQ(rejection(edited("llama31.json", [](auto& j) { j["hidden_size"] = 1LL << 40; })),
            "config.json: field 'hidden_size' = 1099511627776 is too large (at most 2147483647)");
  EXPECT_EQ(rejection(edited("llama31.json", [](auto& j) { j["num_hidden_layers"] = 1000000; })),
            "config.json: field 'num_hidden_layers' = 1000000 is more than 100000 (no such model)");
  EXPECT_EQ(rejection(edited("llama31.json", [](auto& j) { j["num_key_value_heads"] = 7; })),
            "config.json: field 'num_key_value_heads' = 7 must divide num_attention_heads = 64");
}

TEST(ModelConfigErrors, LayerLists) {
  EXPECT_EQ(rejection(edited("glm5.json", [](auto& j) { j["mlp_layer_types"] = {"dense", "sparse"}; })),
            "config.json: field 'mlp_layer_types' has 2 entries; num_hidden_layers is 78");
  EXPECT_EQ(rejection(edited("glm5.json",
                             [](auto& j) {
                               j["indexer_types"] = std::vector<std::string>(78, "full");
                               j["indexer_types"][5] = "half";
                             })),
            "config.json: field 'indexer_types' entries must be \"full\" or \"shared\", got \"half\"");
}

TEST(ModelConfigErrors, UnknownModelType) {
  const std::string message = rejection(edited("llama31.json", [](auto& j) { j["model_type"] = "bert"; }));
  EXPECT_EQ(message.rfind("config.json: field 'model_type' \"bert\" is not supported (supported: glm_moe_dsa, ", 0),
            0u)
      << message;
  EXPECT_NE(message.find("mixtral)"), std::string::npos) << message;
}

TEST(ModelConfigErrors, NotJson) {
  try {
    parse_model_config("{\"model_type\": \"llama\",", "config.json");
    FAIL() << "no error";
  } catch (const IoError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("config.json: not valid JSON (", 0), 0u) << e.what();
  }
  EXPECT_EQ(rejection("[1, 2]"), "config.json: expected a JSON object at the top level, got array");
}

TEST(ModelConfigErrors, FileNamedInMessages) {
  const auto missing = test::test_config_path("no_such_config.json");
  EXPECT_THROW(read_model_config(missing), IoError);
  try {
    read_model_config(missing);
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("--config '" + missing.string() + "'"), std::string::npos) << e.what();
  }
}

TEST(HfQuantConfigErrors, NotAnFp4Checkpoint) {
  try {
    parse_hf_quant_config(R"({"quantization": {"quant_algo": "FP8", "exclude_modules": []}})", "q.json");
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(),
                 "q.json: quantization: field 'quant_algo' must be \"NVFP4\" or \"MXFP4\" (an FP4 checkpoint), "
                 "got \"FP8\"");
  }
  try {
    parse_hf_quant_config(R"({"producer": {}})", "q.json");
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "q.json: field 'quantization' is missing (needed for an hf_quant_config.json)");
  }
}

}  // namespace
}  // namespace fp4gemm
