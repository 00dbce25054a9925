// Which modules an FP4 checkpoint leaves unquantized: glob matching, hf_quant_config.json, the
// quantization_config inside config.json, and ModelOpt's default.
#include "model/fp4_checkpoint.hpp"

#include <fmt/format.h>

#include "fp4gemm/error.hpp"
#include "fp4gemm/io.hpp"
#include "io/source_name.hpp"

namespace fp4gemm {
namespace model_detail {

bool glob_match(std::string_view pattern, std::string_view text) {
  // Iterative wildcard matching with backtracking to the last '*': O(|pattern| * |text|).
  std::size_t p = 0, t = 0, star = std::string_view::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::optional<Fp4Checkpoint> embedded_fp4_checkpoint(const JsonFields& config) {
  const std::optional<JsonFields> q = config.optional_object("quantization_config");
  if (!q) return std::nullopt;
  const std::string method = q->string("quant_method");
  if (method == "mxfp4")
    return Fp4Checkpoint{Fp4Format::mxfp4, q->optional_strings("modules_to_not_convert"),
                         fmt::format("{} quantization_config (mxfp4, modules_to_not_convert)", config.source())};
  if (method == "modelopt" && q->has("quant_algo") && q->string("quant_algo") == "NVFP4")
    return Fp4Checkpoint{Fp4Format::nvfp4, q->optional_strings("ignore"),
                         fmt::format("{} quantization_config (modelopt NVFP4, ignore)", config.source())};
  return std::nullopt;
}

}  // namespace model_detail

bool Fp4Checkpoint::quantizes(std::string_view module) const {
  for (const std::string& pattern : excluded) {
    // The module itself and each dotted ancestor: "a.b.c", "a.b", "a".
    for (std::string_view name = module;;) {
      if (model_detail::glob_match(pattern, name)) return false;
      const std::size_t dot = name.rfind('.');
      if (dot == std::string_view::npos) break;
      name = name.substr(0, dot);
    }
  }
  return true;
}

Fp4Checkpoint parse_hf_quant_config(std::string_view json_text, std::string_view source) {
  const nlohmann::json root = model_detail::parse_json_object(json_text, source);
  const model_detail::JsonFields fields(root, std::string(source), "an hf_quant_config.json");
  const std::optional<model_detail::JsonFields> q = fields.optional_object("quantization");
  if (!q) fields.fail("quantization", "is missing (needed for an hf_quant_config.json)");
  const std::string algo = q->string("quant_algo");
  if (algo != "NVFP4" && algo != "MXFP4")
    q->fail("quant_algo", fmt::format("must be \"NVFP4\" or \"MXFP4\" (an FP4 checkpoint), got \"{}\"", algo));
  return Fp4Checkpoint{algo == "NVFP4" ? Fp4Format::nvfp4 : Fp4Format::mxfp4,
                       q->optional_strings("exclude_modules"),
                       fmt::format("{} ({}, exclude_modules)", source, algo)};
}

Fp4Checkpoint read_hf_quant_config(const std::filesystem::path& path, std::string_view argument) {
  const std::vector<std::uint8_t> bytes = read_file_bytes(path, argument);
  return parse_hf_quant_config(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                               io::source_name(argument, path));
}

Fp4Checkpoint default_fp4_checkpoint(const ModelConfig& model) {
  Fp4Checkpoint c{Fp4Format::nvfp4, {"*lm_head*"},
                  "assumed: ModelOpt NVFP4 default (lm_head and MTP layers unquantized)"};
  for (int j = 0; j < model.mtp_layers; ++j)
    c.excluded.push_back(fmt::format("model.layers.{}", model.num_layers() + j));  // and its modules
  return c;
}

}  // namespace fp4gemm
