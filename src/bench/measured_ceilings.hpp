#pragma once
// The ceilings `fp4gemm ceilings` measured on one GPU: what was measured, how, when, and on which
// GPU and driver (the key its cache file is found by). JSON schema "fp4gemm.ceilings/1":
//
//   {"schema": "fp4gemm.ceilings/1", "gpu": "NVIDIA H200", "driver": "580.65.06",
//    "memory_mib": 143771, "measured_at": "2026-12-03T10:11:12Z", "fp4gemm_version": "0.1.0",
//    "read_gbps":   {"value": 4312.5, "method": "read-only kernel ..."},
//    "copy_gbps":   {...}, "bf16_tflops": {...}, "fp8_tflops": {...},
//    "fp4_tflops":  {"value": 0, "method": "none: no FP4 tensor cores (sm_90)"}}
//
// A value of 0 means none (the GPU lacks that path) or not measured; `method` says which.
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "bench/ceilings.hpp"

namespace fp4gemm {

inline constexpr std::string_view kCeilingsSchema = "fp4gemm.ceilings/1";

// Which GPU and driver a measurement belongs to. `driver` is NVML's driver version
// ("580.65.06"), or "CUDA 13.0" (the CUDA driver API version) where NVML is not available.
struct CeilingsKey {
  std::string gpu;
  std::string driver;
  std::int64_t memory_mib = 0;
  bool operator==(const CeilingsKey&) const = default;
  std::string describe() const;  // "NVIDIA H200, driver 580.65.06, 143771 MiB"
};

struct CeilingMeasurement {
  double value = 0;    // GB/s or TFLOPS; 0 = none or not measured
  std::string method;  // how it was measured, or why there is no value
};

struct MeasuredCeilings {
  CeilingsKey key;
  std::string measured_at;  // ISO 8601 UTC, "2026-12-03T10:11:12Z"
  CeilingMeasurement read_gbps;    // device read bandwidth (the roofline's memory ceiling)
  CeilingMeasurement copy_gbps;    // device-to-device copy, read + write bytes counted
  CeilingMeasurement bf16_tflops;  // dense tensor throughput through cuBLAS/cuBLASLt
  CeilingMeasurement fp8_tflops;
  CeilingMeasurement fp4_tflops;

  // "measured 2026-12-03 (<origin>)": what Ceilings::source says for these.
  std::string source(std::string_view origin = "fp4gemm ceilings") const;
};

// The current UTC time as measured_at writes it.
std::string utc_timestamp_now();

nlohmann::ordered_json to_json(const MeasuredCeilings& m);
// IoError "<source>: ..." when `j` is not a ceilings record of schema fp4gemm.ceilings/1.
MeasuredCeilings measured_ceilings_from_json(const nlohmann::json& j, std::string_view source);

// The Ceilings a roofline uses: memory_gbps = the measured read bandwidth, the tensor peaks as
// measured. A peak the measurement lacks (0) but the datasheet has (e.g. cuBLASLt offered no
// FP4 kernel on a Blackwell GPU) is taken from `datasheet`, and the source says so:
// "measured 2026-12-03 (fp4gemm ceilings); FP4 from the datasheet". The memory type comes from
// the datasheet too ("DRAM" for a GPU it does not know). `origin`: where the record came from.
Ceilings as_ceilings(const MeasuredCeilings& m, const Ceilings& datasheet,
                     std::string_view origin = "fp4gemm ceilings");

}  // namespace fp4gemm
