#include "bench/ceilings_choice.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "bench/ceilings_cache.hpp"
#include "fp4gemm/error.hpp"

namespace fp4gemm {

Ceilings choose_ceilings(std::string_view choice, const std::optional<CeilingsKey>& gpu,
                         const std::string& cpu_model) {
  const Ceilings datasheet = lookup_ceilings(gpu ? gpu->gpu : cpu_model);
  if (choice == "datasheet") return datasheet;
  if (choice == "auto" || choice == "measured") {
    const std::optional<MeasuredCeilings> cached = gpu ? load_cached_ceilings(*gpu) : std::nullopt;
    if (cached) return as_ceilings(*cached, datasheet);
    if (choice == "auto") return datasheet;
    require(gpu.has_value(), "--ceilings measured: there is no CUDA GPU here, and measured ceilings "
            "are a GPU's (the CPU has none)");
    const std::optional<std::filesystem::path> dir = ceilings_cache_dir();
    throw InvalidArgument(fmt::format(
        "--ceilings measured: no measured ceilings for {} in {}; run `fp4gemm ceilings` first",
        gpu->describe(), dir ? fmt::format("'{}'", dir->string()) : std::string("(no cache directory set)")));
  }
  const std::filesystem::path file{std::string(choice)};
  require(std::filesystem::exists(file),
          "--ceilings '{}' is not auto, datasheet, measured or an existing file", choice);
  const MeasuredCeilings m = read_ceilings_file(file, "--ceilings");
  return as_ceilings(m, lookup_ceilings(m.key.gpu), fmt::format("{} on {}", choice, m.key.gpu));
}

}  // namespace fp4gemm
