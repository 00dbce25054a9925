#pragma once
// The FP4 exclusion list found inside a config.json (its quantization_config), for
// parse_model_config. The public parts (Fp4Checkpoint, hf_quant_config.json, the ModelOpt
// default) are in fp4gemm/model.hpp.
#include <optional>
#include <string_view>

#include "fp4gemm/model.hpp"
#include "model/json_fields.hpp"

namespace fp4gemm::model_detail {

// fnmatch-style: '*' any run of characters (dots included), '?' one character.
bool glob_match(std::string_view pattern, std::string_view text);

// The checkpoint described by config.json's quantization_config when it is an FP4 one:
//   quant_method "mxfp4" (gpt-oss): MXFP4, modules_to_not_convert excluded;
//   quant_method "modelopt" with quant_algo "NVFP4" (nvidia/GLM-5.1-NVFP4): NVFP4, `ignore`.
// nullopt for no quantization_config or another method (DeepSeek-V3's fp8 blocks).
std::optional<Fp4Checkpoint> embedded_fp4_checkpoint(const JsonFields& config);

}  // namespace fp4gemm::model_detail
