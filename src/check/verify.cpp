#include "check/verify.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace fp4gemm {
namespace {

struct OutputRounding {
  double relative;  // half an ulp, relative
  double floor;     // half the smallest subnormal
};

OutputRounding output_rounding(DType dtype) {
  switch (dtype) {
    case DType::f32: return {0.0, 0x1p-150};
    case DType::bf16: return {0x1p-8, 0x1p-134};
    case DType::f16: return {0x1p-11, 0x1p-25};
  }
  return {0.0, 0.0};
}

// The accumulation part of the bound, relative to S: K u, or with sums promoted to fp32 every
// B products, min(K, B) u (each block's error is at most B u times its share of S, and the shares
// add up to S) + ceil(K / B) 2^-24 (the fp32 sum of the promoted blocks).
double accumulation_term(std::int64_t k, const Accuracy& accuracy) {
  const std::int64_t block = accuracy.accumulation_block;
  if (block <= 0) return double(k) * accuracy.accumulation_unit;
  return double(std::min(k, block)) * accuracy.accumulation_unit + double((k + block - 1) / block) * 0x1p-24;
}

}  // namespace

VerifyResult verify_output(const std::vector<float>& d, const ReferenceResult& reference,
                           const GemmProblem& problem, const Accuracy& accuracy) {
  VerifyResult r;
  const std::int64_t n_cols = problem.shape.n;
  if (d.size() != reference.exact.size()) {
    r.failure = fmt::format("output has {} elements, expected {}", d.size(), reference.exact.size());
    return r;
  }
  const double e = accuracy.input_relative_error;
  const double growth = (1 + e) * (1 + e);
  const double per_sum = growth - 1 + accumulation_term(problem.shape.k, accuracy) * growth;
  const OutputRounding rounding = output_rounding(problem.out_dtype);

  double error_sq = 0, reference_sq = 0;
  bool any_nonzero_d = false, any_nonzero_r = false;
  for (std::size_t i = 0; i < d.size(); ++i) {
    const double ref = reference.exact[i];
    any_nonzero_r |= ref != 0.0;
    const auto where = [&] { return fmt::format("D[{}][{}]", i / std::size_t(n_cols), i % std::size_t(n_cols)); };
    if (is_poison(d[i])) {
      if (r.unwritten++ == 0 && r.failure.empty()) r.failure = where() + " was never written";
      continue;
    }
    if (!std::isfinite(d[i])) {
      if (r.non_finite++ == 0 && r.failure.empty())
        r.failure = fmt::format("{} = {} but R = {:.6g}", where(), d[i], ref);
      continue;
    }
    any_nonzero_d |= d[i] != 0.0f;
    const double diff = std::fabs(double(d[i]) - ref);
    const double bound = per_sum * reference.abs_sum[i] +
                         (0x1p-24 + rounding.relative) * std::fabs(ref) + rounding.floor;
    error_sq += diff * diff;
    reference_sq += ref * ref;
    const double ratio = diff / bound;
    if (ratio > r.worst_ratio) r.worst_ratio = ratio;
    if (diff > bound && r.violations++ == 0 && r.failure.empty())
      r.failure = fmt::format("{} = {:.9g} but R = {:.9g} (|D - R| = {:.3g} > bound {:.3g})", where(),
                              d[i], ref, diff, bound);
  }
  r.relative_error = reference_sq > 0 ? std::sqrt(error_sq / reference_sq) : std::sqrt(error_sq);
  r.all_zero = any_nonzero_r && !any_nonzero_d && r.unwritten == 0 && r.non_finite == 0;
  if (r.all_zero) r.failure = "output is all zeros but the reference is not";
  r.passed = r.violations == 0 && r.unwritten == 0 && r.non_finite == 0 && !r.all_zero;
  return r;
}

}  // namespace fp4gemm
