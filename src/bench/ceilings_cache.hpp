#pragma once
// Where `fp4gemm ceilings` keeps its measurements between runs: one JSON file (schema
// fp4gemm.ceilings/1, measured_ceilings.hpp) per GPU name, driver version and memory size, in
// the first of
//   $FP4GEMM_CACHE_DIR,  $XDG_CACHE_HOME/fp4gemm,  $HOME/.cache/fp4gemm
// that is set (and not empty). A file is used only for the key it was measured under: another
// driver, or a GPU of another name or memory size, finds no measurement (a file whose recorded
// key differs from the one its name was made from is ignored too).
#include <filesystem>
#include <optional>
#include <string_view>

#include "bench/measured_ceilings.hpp"
#include "fp4gemm/device.hpp"

namespace fp4gemm {

// The cache directory, or nothing when none of the variables is set.
std::optional<std::filesystem::path> ceilings_cache_dir();

// "<dir>/ceilings-nvidia-h200-driver-580-65-06-143771mib.json": the key with every run of
// characters other than [a-z0-9] turned into one '-'.
std::filesystem::path ceilings_cache_file(const std::filesystem::path& dir, const CeilingsKey& key);

// The key of `gpu`: its name and memory (MiB, rounded), and NVML's driver version, or
// "CUDA <gpu.driver>" where NVML is not available.
CeilingsKey ceilings_key(const GpuInfo& gpu);

// Writes `m` to its cache file (atomically, replacing an older measurement of the same key,
// creating the directory) and returns the path. IoError when no cache directory is set or the
// file cannot be written.
std::filesystem::path store_cached_ceilings(const MeasuredCeilings& m);

// The cached measurement of `key`, or nothing (no cache directory, no file, or a file of
// another key). IoError naming the file when it exists but is not a ceilings record.
std::optional<MeasuredCeilings> load_cached_ceilings(const CeilingsKey& key);

// A ceilings record from a file (`fp4gemm ceilings --json`, or a cache file); IoError naming
// `argument` and the path when it cannot be read or is not a ceilings record.
MeasuredCeilings read_ceilings_file(const std::filesystem::path& path, std::string_view argument);

}  // namespace fp4gemm
