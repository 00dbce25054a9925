// MoE routing counts (routing.hpp): balanced, uniform random and Zipf-skewed.
#include "fp4gemm/routing.hpp"

#include <cmath>
#include <numeric>
#include <random>
#include <utility>

#include "fp4gemm/error.hpp"

namespace fp4gemm {
namespace {

// Draws built on mt19937_64 alone (its output sequence is fixed by the standard; the std::
// distributions are not), so a seed gives the same counts everywhere.
class Draws {
 public:
  explicit Draws(std::uint64_t seed) : engine_(seed) {}
  // Uniform in [0, n), n >= 1, without modulo bias: reject the top 2^64 mod n values.
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t reject_from = UINT64_MAX - UINT64_MAX % n;
    for (;;) {
      const std::uint64_t x = engine_();
      if (x < reject_from) return x % n;
    }
  }
  // Uniform in [0, 1) with 53 random bits.
  double unit() { return double(engine_() >> 11) * 0x1.0p-53; }
  // A random order of 0..n-1 (Fisher-Yates).
  std::vector<std::size_t> permutation(std::size_t n) {
    std::vector<std::size_t> p(n);
    std::iota(p.begin(), p.end(), std::size_t{0});
    for (std::size_t i = n; i > 1; --i) std::swap(p[i - 1], p[below(i)]);
    return p;
  }

 private:
  std::mt19937_64 engine_;
};

void route_balanced(std::int64_t tokens, std::int64_t top_k, std::vector<std::int64_t>& counts) {
  const std::int64_t e = std::ssize(counts), total = tokens * top_k;
  for (std::int64_t i = 0; i < e; ++i) counts[i] = total / e + (i < total % e ? 1 : 0);
}

// Each token: the first top_k entries of a partial Fisher-Yates shuffle of the experts (the
// array carries over between tokens; any starting order gives a uniform draw).
void route_uniform(std::int64_t tokens, std::int64_t top_k, Draws& draws, std::vector<std::int64_t>& counts) {
  std::vector<std::size_t> order = draws.permutation(counts.size());
  for (std::int64_t t = 0; t < tokens; ++t)
    for (std::size_t j = 0; j < std::size_t(top_k); ++j) {
      std::swap(order[j], order[j + draws.below(order.size() - j)]);
      ++counts[order[j]];
    }
}

// Each token: top_k draws without replacement, expert of rank r (0-based, over a random
// ranking) weighted 1 / (r+1)^s. O(tokens * top_k * experts).
void route_zipf(std::int64_t tokens, std::int64_t top_k, double s, Draws& draws, std::vector<std::int64_t>& counts) {
  const std::size_t e = counts.size();
  const std::vector<std::size_t> expert_of_rank = draws.permutation(e);
  std::vector<double> weight(e);
  for (std::size_t r = 0; r < e; ++r) weight[r] = std::pow(double(r + 1), -s);
  const double total = std::accumulate(weight.begin(), weight.end(), 0.0);
  std::vector<bool> taken(e, false);
  std::vector<std::size_t> picked;
  for (std::int64_t t = 0; t < tokens; ++t) {
    double left = total;
    for (std::int64_t j = 0; j < top_k; ++j) {
      double u = draws.unit() * left;
      // Walk the untaken ranks; rounding can leave u just past the last one, which then wins.
      std::size_t pick = e;
      for (std::size_t r = 0; r < e; ++r) {
        if (taken[r]) continue;
        pick = r;
        if (u < weight[r]) break;
        u -= weight[r];
      }
      taken[pick] = true;
      left -= weight[pick];
      picked.push_back(pick);
      ++counts[expert_of_rank[pick]];
    }
    for (std::size_t r : picked) taken[r] = false;
    picked.clear();
  }
}

}  // namespace

std::vector<std::int64_t> route_tokens(std::int64_t tokens, std::int64_t top_k, std::int64_t experts,
                                       const Routing& routing) {
  require(tokens >= 0, "routing: tokens = {} must be >= 0", tokens);
  require(experts >= 1, "routing: experts = {} must be >= 1", experts);
  require(top_k >= 1 && top_k <= experts, "routing: top_k = {} must be between 1 and the {} experts", top_k, experts);
  std::vector<std::int64_t> counts(static_cast<std::size_t>(experts), 0);
  Draws draws(routing.seed);
  switch (routing.kind) {
    case RoutingKind::balanced: route_balanced(tokens, top_k, counts); break;
    case RoutingKind::uniform: route_uniform(tokens, top_k, draws, counts); break;
    case RoutingKind::zipf:
      require(std::isfinite(routing.zipf_s) && routing.zipf_s >= 0, "routing: zipf exponent s = {} must be >= 0",
              routing.zipf_s);
      route_zipf(tokens, top_k, routing.zipf_s, draws, counts);
      break;
  }
  return counts;
}

std::span<const std::int64_t> expert_slice(std::span<const std::int64_t> counts, int ep, int rank) {
  require(ep >= 1 && std::ssize(counts) % ep == 0, "expert slice: {} experts are not divisible by ep = {}",
          counts.size(), ep);
  require(rank >= 0 && rank < ep, "expert slice: rank = {} must be in [0, {})", rank, ep);
  const std::size_t local = counts.size() / std::size_t(ep);
  return counts.subspan(std::size_t(rank) * local, local);
}

}  // namespace fp4gemm
