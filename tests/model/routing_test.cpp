// MoE routing: counts sum to T * top_k, no expert above T, seeded draws reproducible, Zipf skewed.
#include <algorithm>
#include <numeric>

#include <gtest/gtest.h>

#include "fp4gemm/error.hpp"
#include "fp4gemm/routing.hpp"

namespace fp4gemm {
namespace {

std::int64_t sum(const std::vector<std::int64_t>& v) { return std::accumulate(v.begin(), v.end(), std::int64_t{0}); }

const Routing kBalanced{RoutingKind::balanced, 1.0, 1};
const Routing kUniform{RoutingKind::uniform, 1.0, 7};
const Routing kZipf{RoutingKind::zipf, 1.2, 7};

TEST(Routing, CountsSumToTokensTimesTopK) {
  for (const Routing& r : {kBalanced, kUniform, kZipf})
    for (std::int64_t tokens : {0, 1, 3, 256, 1000}) {
      const auto counts = route_tokens(tokens, 8, 256, r);
      ASSERT_EQ(counts.size(), 256u);
      EXPECT_EQ(sum(counts), tokens * 8) << int(r.kind) << " T=" << tokens;
      // A token picks distinct experts: no expert gets more than T.
      EXPECT_LE(*std::max_element(counts.begin(), counts.end()), tokens);
      EXPECT_GE(*std::min_element(counts.begin(), counts.end()), 0);
    }
}

// GLM-5 decode: 256 tokens x top-8 over 256 experts = 8 each. 10 x 3 over 7: 30 = 4 * 7 + 2.
TEST(Routing, BalancedIsExact) {
  EXPECT_EQ(route_tokens(256, 8, 256, kBalanced), std::vector<std::int64_t>(256, 8));
  EXPECT_EQ(route_tokens(10, 3, 7, kBalanced), (std::vector<std::int64_t>{5, 5, 4, 4, 4, 4, 4}));
}

TEST(Routing, TopKEqualToExpertsSendsEveryTokenEverywhere) {
  for (const Routing& r : {kUniform, kZipf}) EXPECT_EQ(route_tokens(5, 4, 4, r), std::vector<std::int64_t>(4, 5));
}

TEST(Routing, SeededDrawsAreReproducible) {
  for (Routing r : {kUniform, kZipf}) {
    const auto a = route_tokens(512, 8, 256, r);
    EXPECT_EQ(a, route_tokens(512, 8, 256, r));
    r.seed = 8;
    EXPECT_NE(a, route_tokens(512, 8, 256, r));
  }
}

// Uniform: 4096 x 8 over 256 experts, 128 expected each (binomial sd ~ 11). Zipf(1.2): the
// weights sum to ~3.9, so the hottest expert wins a token's first pick with p ~ 0.25 and is in
// ~90% of tokens' top 8 (~3700), while the coldest (weight 256^-1.2) expects ~11 tokens.
TEST(Routing, ZipfIsSkewedAndUniformIsNot) {
  const auto uniform = route_tokens(4096, 8, 256, kUniform);
  const auto [umin, umax] = std::minmax_element(uniform.begin(), uniform.end());
  EXPECT_GT(*umin, 64);
  EXPECT_LT(*umax, 192);
  const auto zipf = route_tokens(4096, 8, 256, kZipf);
  EXPECT_GT(*std::max_element(zipf.begin(), zipf.end()), 2000);
  EXPECT_LT(*std::min_element(zipf.begin(), zipf.end()), 64);
  // s = 0 is uniform weighting.
  const auto flat = route_tokens(4096, 8, 256, {RoutingKind::zipf, 0.0, 7});
  EXPECT_LT(*std::max_element(flat.begin(), flat.end()), 192);
}

TEST(Routing, ExpertSliceIsTheGpusExperts) {
  const std::vector<std::int64_t> counts{1, 2, 3, 4, 5, 6, 7, 8};
  const auto third = expert_slice(counts, 4, 2);
  EXPECT_EQ(std::vector<std::int64_t>(third.begin(), third.end()), (std::vector<std::int64_t>{5, 6}));
  EXPECT_THROW(expert_slice(counts, 3, 0), InvalidArgument);
  EXPECT_THROW(expert_slice(counts, 4, 4), InvalidArgument);
}

TEST(Routing, BadArguments) {
  EXPECT_THROW(route_tokens(-1, 8, 256, kBalanced), InvalidArgument);
  EXPECT_THROW(route_tokens(8, 0, 256, kBalanced), InvalidArgument);
  EXPECT_THROW(route_tokens(8, 9, 8, kUniform), InvalidArgument);
  EXPECT_THROW(route_tokens(8, 2, 8, {RoutingKind::zipf, -0.5, 1}), InvalidArgument);
}

}  // namespace
}  // namespace fp4gemm
