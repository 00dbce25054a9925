#pragma once
// Helpers of the cpu-fast tests: run a backend on operands the way check does (poisoned output,
// then run), and compare with the CPU reference under the backend's declared error bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "cpu/fast_gemm.hpp"
#include "fp4gemm/backend.hpp"
#include "fp4gemm/device.hpp"
#include "fp4gemm/gemm.hpp"

namespace fp4gemm::test {

// Base of the tests run once per ISA: the parameter is (ISA, Case); SetUp skips, with the
// reason, every ISA this CPU (or build) cannot run.
template <class Case>
class PerIsaTest : public testing::TestWithParam<std::tuple<cpu::Isa, Case>> {
 protected:
  void SetUp() override {
    const Verdict verdict = cpu::isa_support(isa(), query_cpu());
    if (!verdict) GTEST_SKIP() << cpu::to_string(isa()) << ": " << verdict.reason;
  }
  cpu::Isa isa() const { return std::get<0>(this->GetParam()); }
  const Case& test_case() const { return std::get<1>(this->GetParam()); }
};

// D after poison_output() and one run(), decoded to fp32.
inline std::vector<float> run_poisoned(const Backend& backend, const GemmOperands& ops) {
  const auto run = backend.prepare(ops);
  run->poison_output();
  run->run();
  run->synchronize();
  return run->output();
}

// Spacing of `dtype` values at magnitude |x| (the subnormal spacing below the normal range).
inline double ulp_of(DType dtype, double x) {
  const int significand_bits = dtype == DType::f32 ? 24 : dtype == DType::bf16 ? 8 : 11;
  const int min_exponent = dtype == DType::f16 ? -14 : -126;
  const int exponent = x == 0.0 ? min_exponent : std::max(std::ilogb(x), min_exponent);
  return std::ldexp(1.0, exponent - (significand_bits - 1));
}

// Every element written (not poison, finite), within
//   |D - R_exact| <= K * accumulation_unit * S + (16-bit outputs) half an ulp of the dtype at |D|
// (for f32 output the final rounding is one of the roundings the accumulation bound counts),
// and not all zero. Reports the first few offenders.
inline void expect_matches_reference(const std::vector<float>& d, const ReferenceResult& ref,
                                     const GemmProblem& problem, const Accuracy& accuracy) {
  ASSERT_EQ(d.size(), ref.exact.size());
  const double k_unit = double(problem.shape.k) * accuracy.accumulation_unit;
  std::int64_t bad = 0, nonzero = 0;
  double worst_ratio = 0;
  for (std::size_t i = 0; i < d.size(); ++i) {
    const bool written = !is_poison(d[i]) && std::isfinite(d[i]);
    const double error = std::fabs(double(d[i]) - ref.exact[i]);
    const double rounding =
        problem.out_dtype == DType::f32 ? 0.0 : 0.5 * ulp_of(problem.out_dtype, std::fabs(d[i]));
    const double bound = k_unit * ref.abs_sum[i] + rounding;
    nonzero += d[i] != 0.0f;
    if (written && bound > 0) worst_ratio = std::max(worst_ratio, error / bound);
    if (!written || error > bound) {
      if (++bad <= 5)
        ADD_FAILURE() << problem.describe() << ": D[" << i / std::size_t(problem.shape.n) << "]["
                      << i % std::size_t(problem.shape.n) << "] = " << d[i] << ", exact "
                      << ref.exact[i] << ", |error| " << error << " > bound " << bound;
    }
  }
  EXPECT_EQ(bad, 0) << "elements out of bound or unwritten";
  EXPECT_GT(nonzero, 0) << problem.describe() << ": output is all zero";
  testing::Test::RecordProperty("worst_error_over_bound", std::to_string(worst_ratio));
}

}  // namespace fp4gemm::test
