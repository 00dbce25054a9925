#pragma once
// How error messages name a file: "<argument> '<path>'", e.g. "--a 'x.npy'".
#include <fmt/format.h>

#include <filesystem>
#include <string>
#include <string_view>

namespace fp4gemm::io {

inline std::string source_name(std::string_view argument, const std::filesystem::path& path) {
  return fmt::format("{} '{}'", argument, path.string());
}

}  // namespace fp4gemm::io
