#pragma once
// verify_output: one backend's D against the reference, element by element.
//
// Tolerance, from the arithmetic (Backend::Accuracy): with S = |alpha| sum_k |A_hat B_hat| and
// e = input_relative_error, u = accumulation_unit,
//   |D - R| <= ((1 + e)^2 - 1 + K u (1 + e)^2) * S + (2^-24 + u_out) * |R| + floor_out
// (K u becomes min(K, B) u + ceil(K / B) 2^-24 for a backend whose sums are promoted to fp32
// every B = accumulation_block products), where u_out is the output dtype's half-ulp (f32 0,
// bf16 2^-8, f16 2^-11; the 2^-24 is the fp32 alpha multiply) and floor_out half its smallest
// subnormal. An exact backend (e = 0)
// therefore differs from R only by accumulation order and output rounding.
// Also flagged: NaN/Inf, elements never written (still the poison pattern), all-zero output
// where R is not all zero.
#include <cstdint>
#include <string>
#include <vector>

#include "fp4gemm/backend.hpp"
#include "fp4gemm/gemm.hpp"

namespace fp4gemm {

struct VerifyResult {
  bool passed = false;
  double relative_error = 0;     // ||D - R||_2 / ||R||_2 over the finite elements
  double worst_ratio = 0;        // max |D - R| / bound (<= 1 passes)
  std::int64_t violations = 0;   // elements over their bound
  std::int64_t unwritten = 0;    // elements still holding the poison pattern
  std::int64_t non_finite = 0;   // NaN/Inf that are not poison
  bool all_zero = false;         // D all zero while R is not
  std::string failure;           // first problem found, e.g. "D[3][17] = 0 but R = 1.25 (bound 1e-6)"
};

VerifyResult verify_output(const std::vector<float>& d, const ReferenceResult& reference,
                           const GemmProblem& problem, const Accuracy& accuracy);

}  // namespace fp4gemm
