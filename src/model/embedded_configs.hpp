#pragma once
// The files of src/model/configs/, compiled into the library verbatim (src/model/CMakeLists.txt
// generates embedded_configs.cpp from embedded_configs.cpp.in at configure time).
#include <string_view>

namespace fp4gemm::model_detail {

// The text of configs/<file_name>; std::logic_error if the build did not embed it (a bug in
// src/model/CMakeLists.txt, not a user error).
std::string_view embedded_config(std::string_view file_name);

}  // namespace fp4gemm::model_detail
