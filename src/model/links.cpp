// GPU links and the alpha-beta time of the collectives the plan estimate uses.
#include <fmt/format.h>

#include "fp4gemm/error.hpp"
#include "fp4gemm/plan_estimate.hpp"

namespace fp4gemm {
namespace {

// Latencies: NCCL's tuning model (src/graph/tuning.cc, NVIDIA/nccl 01afd20a): baseLat of the
// ring algorithm with the LL protocol, 3.6 us, which NCCL uses for small messages (decode
// activations are KBs to a few MB); hwLat per ring step with LL, 0.47 us over NVLink and
// 1.0 us over PCIe. Bandwidths: the datasheet peak per direction, which NCCL's bus bandwidth
// approaches for large messages and does not reach for small ones.
constexpr double kBaseLatency = 3.6e-6;

const std::vector<Link> kLinks = {
    {"nvlink4", "NVLink 4 (H100/H200 SXM, NVSwitch)", 450e9, 0.47e-6, kBaseLatency,
     "NVIDIA H100 datasheet: 900 GB/s NVLink per GPU, both directions together"},
    {"nvlink5", "NVLink 5 (B200/GB200, NVSwitch)", 900e9, 0.47e-6, kBaseLatency,
     "NVIDIA B200 datasheet: 1.8 TB/s NVLink per GPU, both directions together"},
    {"pcie5", "PCIe Gen5 x16 (no NVLink, e.g. RTX PRO 6000)", 63.0e9, 1.0e-6, kBaseLatency,
     "PCIe 5.0: 32 GT/s x 16 lanes x 128/130 encoding / 8 = 63.0 GB/s per direction"},
};

}  // namespace

const std::vector<Link>& links() { return kLinks; }

const Link& find_link(std::string_view name) {
  std::string known;
  for (const Link& l : kLinks) {
    if (l.name == name) return l;
    known += fmt::format("{}{}", known.empty() ? "" : ", ", l.name);
  }
  throw InvalidArgument(fmt::format("link '{}' is not known (links: {})", name, known));
}

double all_reduce_seconds(const Link& link, int n, double bytes) {
  if (n <= 1) return 0;
  return link.base_latency_s + 2.0 * (n - 1) * link.step_latency_s +
         2.0 * (n - 1) / n * bytes / link.bytes_per_second;
}

double all_gather_seconds(const Link& link, int n, double bytes) {
  if (n <= 1) return 0;
  return link.base_latency_s + double(n - 1) * link.step_latency_s + double(n - 1) / n * bytes / link.bytes_per_second;
}

double all_to_all_seconds(const Link& link, int n, double bytes_received) {
  if (n <= 1) return 0;
  return send_seconds(link, bytes_received);
}

double send_seconds(const Link& link, double bytes) {
  return link.base_latency_s + link.step_latency_s + bytes / link.bytes_per_second;
}

}  // namespace fp4gemm
