#pragma once
// MoE routing: how many of a batch's tokens each expert receives.
//
// Every token picks top_k distinct experts of E, so the counts sum to T * top_k and none
// exceeds T. Three distributions:
//   balanced  T*top_k / E each; the remainder r gives experts 0..r-1 one more (deterministic);
//   uniform   each token draws top_k distinct experts uniformly at random;
//   zipf      each token draws top_k distinct experts without replacement, with weights
//             1 / rank^s over a random ranking of the experts (s = 0 is uniform; the larger s,
//             the hotter the few top experts). The ranking is shuffled so that the hot experts
//             land on random GPUs, not all on the first.
// The random ones are reproducible: the same seed gives the same counts on every platform
// (mt19937_64 with integer-only bounded draws, no std:: distributions).
#include <cstdint>
#include <span>
#include <vector>

namespace fp4gemm {

enum class RoutingKind { balanced, uniform, zipf };

struct Routing {
  RoutingKind kind = RoutingKind::balanced;
  double zipf_s = 1.0;  // zipf exponent, >= 0
  std::uint64_t seed = 1;
};

// counts[e] = tokens routed to expert e, e in [0, experts). Requires tokens >= 0,
// 1 <= top_k <= experts; InvalidArgument naming the argument otherwise.
std::vector<std::int64_t> route_tokens(std::int64_t tokens, std::int64_t top_k, std::int64_t experts,
                                       const Routing& routing);

// The counts of the experts GPU `rank` of `ep` holds: [rank * E/ep, (rank+1) * E/ep).
// Requires E divisible by ep and 0 <= rank < ep.
std::span<const std::int64_t> expert_slice(std::span<const std::int64_t> counts, int ep, int rank);

}  // namespace fp4gemm
