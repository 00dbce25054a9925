// The datasheet table behind lookup_ceilings(). Dense peaks (the datasheets print 2:4-sparse
// figures too: those are twice these). Sources, by entry:
//   H100 / H200:  NVIDIA H100 Tensor Core GPU datasheet, nvidia.com/en-us/data-center/h100/;
//                 NVIDIA H200 Tensor Core GPU datasheet, nvidia.com/en-us/data-center/h200/
//                 (sparse BF16 1,979 / FP8 3,958 TFLOPS for the SXM parts, halved here).
//   B200 / B300:  NVIDIA HGX B200 and HGX B300 specifications, nvidia.com/en-us/data-center/hgx/
//                 (8-GPU totals divided by 8: B200 FP4 72, FP8 36, BF16 18 PF dense; B300 FP4
//                 105 PF dense); 8 TB/s HBM3e per GPU.
//   GB200/GB300:  NVIDIA GB200 NVL72 and GB300 NVL72 specifications,
//                 nvidia.com/en-us/data-center/gb200-nvl72/ (per GPU: FP4 10 / 15 PF dense,
//                 FP8 5 PF, BF16 2.5 PF; 8 TB/s).
//   RTX PRO 6000 Blackwell: NVIDIA RTX PRO 6000 Blackwell Workstation Edition datasheet and the
//                 RTX Blackwell whitepaper (FP4 2,015, FP8 1,008, BF16 504 TFLOPS dense with FP32
//                 accumulate; 4,000 "AI TOPS" is sparse FP4); 1,792 GB/s GDDR7. The Max-Q and
//                 Server editions match the same key; their lower clocks (and the Server
//                 edition's lower bandwidth) are not in this table, so their floors are optimistic.
//   RTX 5090:     NVIDIA RTX Blackwell GPU architecture whitepaper, appendix (peaks with FP32
//                 accumulate, which GeForce runs at half the FP16-accumulate rate: FP4 1,676,
//                 FP8 419, BF16 209.5 TFLOPS dense); 1,792 GB/s GDDR7.
//   A100:         NVIDIA A100 Tensor Core GPU datasheet, nvidia.com/en-us/data-center/a100/
//                 (BF16 312 TFLOPS dense; no FP8/FP4 tensor cores; 80GB SXM4 2,039 GB/s,
//                 80GB PCIe 1,935 GB/s, 40GB 1,555 GB/s).
//   L40S:         NVIDIA L40S datasheet, nvidia.com/en-us/data-center/l40s/ (BF16 362, FP8 733
//                 TFLOPS dense; 864 GB/s GDDR6).
// The CUDA device names these keys match are those of cudaGetDeviceProperties, e.g.
// "NVIDIA H100 80GB HBM3", "NVIDIA H200", "NVIDIA B200", "NVIDIA GeForce RTX 5090",
// "NVIDIA A100-SXM4-80GB", "NVIDIA RTX PRO 6000 Blackwell Workstation Edition".
#include "bench/ceilings.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

#include <fmt/format.h>

namespace fp4gemm {
namespace {

struct Entry {
  std::string_view key;   // substring of the device name
  std::string_view name;  // the datasheet's product name
  std::string_view memory;
  double memory_gbps, bf16_tflops, fp8_tflops, fp4_tflops;
};

// Most specific key first: "H100 PCIe" before "H100", "GB200" before "B200".
constexpr Entry kTable[] = {
    {"H100 PCIe", "NVIDIA H100 PCIe", "HBM2e", 2000, 756, 1513, 0},
    {"H100 NVL", "NVIDIA H100 NVL", "HBM3", 3900, 835, 1671, 0},
    {"H100", "NVIDIA H100 SXM", "HBM3", 3350, 989, 1979, 0},
    {"H200 NVL", "NVIDIA H200 NVL", "HBM3e", 4800, 835, 1671, 0},
    {"H200", "NVIDIA H200 SXM", "HBM3e", 4800, 989, 1979, 0},
    {"GB300", "NVIDIA GB300 (per GPU)", "HBM3e", 8000, 2500, 5000, 15000},
    {"B300", "NVIDIA HGX B300 (per GPU)", "HBM3e", 8000, 2250, 4500, 13125},
    {"GB200", "NVIDIA GB200 (per GPU)", "HBM3e", 8000, 2500, 5000, 10000},
    {"B200", "NVIDIA HGX B200 (per GPU)", "HBM3e", 8000, 2250, 4500, 9000},
    {"RTX PRO 6000 Blackwell", "NVIDIA RTX PRO 6000 Blackwell", "GDDR7", 1792, 503.8, 1007.6, 2015.2},
    {"RTX 5090", "NVIDIA GeForce RTX 5090", "GDDR7", 1792, 209.5, 419, 1676},
    {"A100-SXM4-80GB", "NVIDIA A100 80GB SXM", "HBM2e", 2039, 312, 0, 0},
    {"A100 80GB PCIe", "NVIDIA A100 80GB PCIe", "HBM2e", 1935, 312, 0, 0},
    {"A100", "NVIDIA A100 40GB", "HBM2", 1555, 312, 0, 0},
    {"L40S", "NVIDIA L40S", "GDDR6", 864, 362, 733, 0},
};

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return out;
}

}  // namespace

double Ceilings::peak_tflops(ComputePath path) const {
  switch (path) {
    case ComputePath::cpu: return 0;
    case ComputePath::bf16_tensor: return bf16_tflops;
    case ComputePath::fp8_tensor: return fp8_tflops;
    case ComputePath::fp4_tensor: return fp4_tflops;
  }
  return 0;
}

std::string Ceilings::describe() const {
  if (!known()) return fmt::format("none known for {}", device);
  const auto peak = [](double t) { return t > 0 ? fmt::format("{:g}", t) : std::string("none"); };
  return fmt::format("{} ({} {:g} GB/s; dense TFLOPS BF16 {}, FP8 {}, FP4 {})", source, memory,
                     memory_gbps, peak(bf16_tflops), peak(fp8_tflops), peak(fp4_tflops));
}

Ceilings lookup_ceilings(const std::string& device_name) {
  const std::string name = lower(device_name);
  for (const Entry& e : kTable) {
    if (name.find(lower(e.key)) == std::string::npos) continue;
    return {device_name, std::string(e.memory), e.memory_gbps, e.bf16_tflops, e.fp8_tflops,
            e.fp4_tflops, "datasheet: " + std::string(e.name)};
  }
  return {device_name, "", 0, 0, 0, 0, "none known"};
}

}  // namespace fp4gemm
