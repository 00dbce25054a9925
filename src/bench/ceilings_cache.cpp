#include "bench/ceilings_cache.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <system_error>

#include <fmt/format.h>

#include "bench/nvml_library.hpp"
#include "fp4gemm/error.hpp"
#include "fp4gemm/io.hpp"

namespace fp4gemm {
namespace {

// The variable's value when it is set and not empty.
std::optional<std::string> environment(const char* name) {
  const char* value = std::getenv(name);
  if (!value || !*value) return std::nullopt;
  return std::string(value);
}

// Lower-case letters and digits; every other run of characters becomes one '-'.
std::string slug(std::string_view text) {
  std::string out;
  for (const unsigned char c : text) {
    if (std::isalnum(c)) {
      out += char(std::tolower(c));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

}  // namespace

std::optional<std::filesystem::path> ceilings_cache_dir() {
  if (const auto dir = environment("FP4GEMM_CACHE_DIR")) return std::filesystem::path(*dir);
  if (const auto xdg = environment("XDG_CACHE_HOME")) return std::filesystem::path(*xdg) / "fp4gemm";
  if (const auto home = environment("HOME")) return std::filesystem::path(*home) / ".cache" / "fp4gemm";
  return std::nullopt;
}

std::filesystem::path ceilings_cache_file(const std::filesystem::path& dir, const CeilingsKey& key) {
  return dir / fmt::format("ceilings-{}-driver-{}-{}mib.json", slug(key.gpu), slug(key.driver),
                           key.memory_mib);
}

CeilingsKey ceilings_key(const GpuInfo& gpu) {
  std::string why_no_nvml;
  const std::optional<std::string> driver = nvml_driver_version(why_no_nvml);
  return {gpu.name, driver ? *driver : "CUDA " + gpu.driver, std::llround(gpu.memory_gib * 1024)};
}

std::filesystem::path store_cached_ceilings(const MeasuredCeilings& m) {
  const std::optional<std::filesystem::path> dir = ceilings_cache_dir();
  if (!dir)
    throw IoError("no cache directory for the measured ceilings: set FP4GEMM_CACHE_DIR (or "
                  "XDG_CACHE_HOME or HOME)");
  std::error_code error;
  std::filesystem::create_directories(*dir, error);
  if (error)
    throw IoError(fmt::format("ceilings cache directory '{}' cannot be created: {}", dir->string(),
                              error.message()));
  const std::filesystem::path path = ceilings_cache_file(*dir, m.key);
  write_text_atomically(path, to_json(m).dump(2) + "\n", true, "ceilings cache file");
  return path;
}

std::optional<MeasuredCeilings> load_cached_ceilings(const CeilingsKey& key) {
  const std::optional<std::filesystem::path> dir = ceilings_cache_dir();
  if (!dir) return std::nullopt;
  const std::filesystem::path path = ceilings_cache_file(*dir, key);
  if (!std::filesystem::exists(path)) return std::nullopt;
  MeasuredCeilings m = read_ceilings_file(path, "ceilings cache file");
  if (m.key != key) return std::nullopt;
  return m;
}

MeasuredCeilings read_ceilings_file(const std::filesystem::path& path, std::string_view argument) {
  const std::vector<std::uint8_t> bytes = read_file_bytes(path, argument);
  const std::string source = fmt::format("{} '{}'", argument, path.string());
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(bytes.begin(), bytes.end());
  } catch (const nlohmann::json::parse_error& e) {
    throw IoError(fmt::format("{}: not valid JSON ({})", source, e.what()));
  }
  return measured_ceilings_from_json(j, source);
}

}  // namespace fp4gemm
