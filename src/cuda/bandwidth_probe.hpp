#pragma once
// Device memory bandwidth as `fp4gemm ceilings` measures it: a read-only kernel (the roofline's
// memory ceiling: a GEMM at decode sizes is a stream of reads) and a device-to-device copy.
#include <cstddef>
#include <string>

namespace fp4gemm::cuda {

struct BandwidthMeasurement {
  double bytes = 0;   // bytes moved per call (the copy counts each byte read and written)
  double best_s = 0;  // the least time of one call
  std::string method;
  double gbps() const { return bytes / best_s * 1e-9; }
};

// The read kernel of bandwidth_probe.cu over a buffer of `bytes` (a multiple of 16) on the
// current device: checked once against the XOR of the whole buffer (Error if it skipped or
// misread a word), then the best of `repetitions` timed calls after `warmup` untimed ones.
BandwidthMeasurement measure_read_bandwidth(std::size_t bytes, int warmup, int repetitions);

// cudaMemcpyAsync device to device of `bytes`; 2 x bytes are counted (read once, written once).
BandwidthMeasurement measure_copy_bandwidth(std::size_t bytes, int warmup, int repetitions);

}  // namespace fp4gemm::cuda
