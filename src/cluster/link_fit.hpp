#pragma once
// The link model of `fp4gemm plan` (plan_estimate.hpp: base + steps x step latency + bytes / B)
// calibrated by measurement: a least-squares fit of time = latency + bytes / bandwidth to each
// collective measured per message size (`fp4gemm collectives`, or the sweep `plan --measure`
// runs first), and the Link those fits give. No CUDA, no NCCL: tested on the CPU.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/collective_math.hpp"
#include "fp4gemm/plan_estimate.hpp"

namespace fp4gemm {

struct TimedMessage {
  double bytes = 0;
  double seconds = 0;
};

// time = latency_s + seconds_per_byte * bytes, fitted by least squares on relative residuals
// (each point weighted 1 / time^2, so that the microseconds of small messages count as much as
// the milliseconds of large ones). A negative latency is refitted as 0 (a line through the
// origin). InvalidArgument with fewer than two distinct sizes or a time that is not positive.
struct LineFit {
  double latency_s = 0;
  double seconds_per_byte = 0;
  int points = 0;
  double max_relative_error = 0;  // max over the points of |fit - time| / time
};
LineFit fit_latency_bandwidth(std::span<const TimedMessage> points);

// One collective's fit over the sizes measured: latency, and the bandwidths that its slope gives
// (algbw = 1 / slope; busbw = nccl-tests' factor / slope, 0 on one GPU), in GB/s of 1e9 bytes.
struct CollectiveFit {
  CollectiveOp op = CollectiveOp::all_reduce;
  LineFit fit;
  std::uint64_t min_bytes = 0, max_bytes = 0;
  double algbw_gbps = 0, busbw_gbps = 0;
};

struct LinkCalibration {
  int world_size = 0;
  std::vector<CollectiveFit> fits;  // all_reduce, then all_to_all, those measured
  // The Link of plan_estimate.hpp these fits give (world size >= 2):
  //   B: from all-reduce's slope s, whose model is 2(n-1)/n / B per byte: B = 2(n-1)/n / s
  //      (its busbw); without an all-reduce, all-to-all's: B = (n-1)/n / s (the model's
  //      all-to-all moves the (n-1)/n of the message that leaves the GPU);
  //   latencies: all-reduce's latency is base + 2(n-1) step, all-to-all's base + step, so
  //      step = (a_ar - a_a2a) / (2n - 3) and base = a_a2a - step (each at least 0); with only
  //      one of them, base = its latency and step = 0.
  std::optional<Link> link;
  std::string note;  // why there is no link, or how it was derived
};

// The fits of `measured` (merged over the ranks: the slowest rank's time per size; sizes whose
// values were wrong are left out) and the link. `source` names where the numbers came from
// (a command line or a file) in the Link's source.
LinkCalibration calibrate_link(std::span<const CollectiveMeasurement> measured, int world_size,
                               std::string_view source);

nlohmann::ordered_json to_json(const LinkCalibration& calibration);

// The measurements of a `fp4gemm collectives --json` object ({"world_size", "results": [{"op",
// "bytes", "time_us", "correct"}]}), or of the "collectives" object of a `plan --measure --json`
// file. InvalidArgument naming `source` and the field when the object is neither.
std::vector<CollectiveMeasurement> collective_measurements_from_json(const nlohmann::json& object,
                                                                     std::string_view source, int& world_size);

// `plan --link-from FILE`: the link fitted from the collectives in FILE (either JSON above).
// InvalidArgument naming the file when it has none, or when they were measured on one GPU
// (nothing crossed a link).
Link read_measured_link(const std::string& path, std::string_view argument = "--link-from");

}  // namespace fp4gemm
