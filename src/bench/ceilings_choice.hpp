#pragma once
// Which ceilings `fp4gemm bench` measures its rows against (its --ceilings option):
//   auto (default)  this GPU's measured ceilings when the cache holds them (same name, driver and
//                   memory: ceilings_cache.hpp), else the datasheet table's;
//   datasheet       the datasheet table (ceilings.cpp);
//   measured        the cache's; InvalidArgument "run `fp4gemm ceilings` first" when it has none;
//   FILE            a ceilings record (`fp4gemm ceilings --json FILE`), whatever GPU it was
//                   measured on: the source names the file and that GPU
//                   ("measured 2026-12-03 (h200.json on NVIDIA H200)").
// Without a GPU the rows are the CPU's, which has no ceilings: auto and datasheet give none,
// measured is an error. Ceilings::source says which was used: "measured 2026-12-03 (fp4gemm
// ceilings)", "datasheet: NVIDIA H200 SXM", "none known".
#include <optional>
#include <string>
#include <string_view>

#include "bench/ceilings.hpp"
#include "bench/measured_ceilings.hpp"

namespace fp4gemm {

// `gpu`: the key of the GPU the GPU backends run on, or nothing (then `cpu_model` is the device).
Ceilings choose_ceilings(std::string_view choice, const std::optional<CeilingsKey>& gpu,
                         const std::string& cpu_model);

}  // namespace fp4gemm
