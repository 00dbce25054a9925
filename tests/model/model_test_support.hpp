#pragma once
// Shared by the model tests: the embedded configs' files on disk, and finding a GEMM row.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "fp4gemm/parallel.hpp"

namespace fp4gemm::test {

// src/model/configs (the presets' files, sources in SOURCES.md) and tests/data/model_configs
// (test-only files, README.md there).
inline std::filesystem::path preset_config_path(std::string_view file) {
  return std::filesystem::path(FP4GEMM_MODEL_CONFIG_DIR) / file;
}
inline std::filesystem::path test_config_path(std::string_view file) {
  return std::filesystem::path(FP4GEMM_TEST_DATA_DIR) / "model_configs" / file;
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The row called `name` (MTP rows when `mtp`); fails the test if there is not exactly one.
inline const GemmEntry& row(const Stage& stage, std::string_view name, bool mtp = false) {
  const GemmEntry* found = nullptr;
  int matches = 0;
  for (const GemmEntry& e : stage.gemms)
    if (e.name == name && e.mtp == mtp) {
      found = &e;
      ++matches;
    }
  if (matches != 1) throw std::runtime_error(std::string("expected one row '") + std::string(name) + "', found " + std::to_string(matches));
  return *found;
}

}  // namespace fp4gemm::test
