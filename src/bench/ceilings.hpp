#pragma once
// The hardware limits a bench result is measured against: a built-in table of datasheet peaks
// (dense, i.e. without 2:4 sparsity) keyed by a substring of the device name. A device the table
// does not know, and every CPU, has no ceiling: its results get no floor and no verdict but
// "no ceiling known", never a guessed one.
#include <string>

#include "fp4gemm/backend.hpp"

namespace fp4gemm {

struct Ceilings {
  std::string device;           // the device name looked up
  std::string memory;           // "HBM3e", "GDDR7", ...; empty when unknown
  double memory_gbps = 0;       // DRAM bandwidth, GB/s (1e9 bytes/s); 0 = unknown
  double bf16_tflops = 0;       // dense tensor-core peaks with FP32 accumulation; 0 = none
  double fp8_tflops = 0;
  double fp4_tflops = 0;
  std::string source;           // "datasheet: NVIDIA H200 SXM", or "none known"
  bool known() const { return memory_gbps > 0; }
  // "datasheet: NVIDIA H200 SXM (HBM3e 4800 GB/s; dense TFLOPS BF16 989, FP8 1979, FP4 none)"
  // or "none known for <device>".
  std::string describe() const;
  // The peak of a compute path on this device, TFLOPS; 0 when it has none (or for the CPU).
  double peak_tflops(ComputePath path) const;
};

// The entry whose key `device_name` contains (case-insensitive, most specific key first), or
// an unknown one with source "none known".
Ceilings lookup_ceilings(const std::string& device_name);

}  // namespace fp4gemm
