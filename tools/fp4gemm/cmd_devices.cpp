// fp4gemm devices: the CPU and every CUDA GPU present.
#include <fmt/format.h>

#include "commands.hpp"
#include "fp4gemm/device.hpp"

namespace fp4gemm::cli {

void add_devices_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("devices", "Show the CPU and the CUDA GPUs present");
  cmd->callback([] {
    const CpuInfo cpu = query_cpu();
    fmt::print("CPU   {}\n      {} logical cores; AVX2 {}, FMA {}, AVX-512F {}, AVX-512BW {}\n"
               "      cpu-fast uses: {}\n",
               cpu.model, cpu.logical_cores, cpu.avx2 ? "yes" : "no", cpu.fma ? "yes" : "no",
               cpu.avx512f ? "yes" : "no", cpu.avx512bw ? "yes" : "no", cpu.simd_in_use);
    std::string why_none;
    const std::vector<GpuInfo> gpus = query_gpus(&why_none);
    if (gpus.empty()) fmt::print("GPU   none: {}\n", why_none);
    for (const GpuInfo& g : gpus)
      fmt::print("GPU {} {}\n      sm_{}{}, {} SMs, {:.1f} GiB, {} KiB shared memory per block (opt-in), "
                 "{} MiB L2\n      max clocks: SM {} MHz, memory {} MHz, {}-bit bus; driver {}\n",
                 g.index, g.name, g.sm_major, g.sm_minor, g.multiprocessors, g.memory_gib,
                 g.smem_per_block_optin / 1024, g.l2_bytes / (1024 * 1024), g.sm_clock_mhz,
                 g.memory_clock_mhz, g.memory_bus_bits, g.driver);
  });
}

}  // namespace fp4gemm::cli
