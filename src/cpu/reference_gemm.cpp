// The CPU reference GEMM: the oracle for every backend. Deliberately plain: decode each operand
// element to its exact value (a double), multiply in double, accumulate in double in k order,
// scale by alpha, round once to the output dtype. No blocking and no vector tricks; output rows
// are split across threads, which changes nothing in any element's arithmetic.
#include <cmath>

#include "cpu/parallel_for.hpp"
#include "fp4gemm/codecs.hpp"
#include "fp4gemm/gemm.hpp"

namespace fp4gemm {
namespace {

// A_hat as doubles, M x K (exact: block values and bf16 values are exact in double).
std::vector<double> activation_values(const GemmOperands& ops) {
  const GemmShape& s = ops.problem.shape;
  std::vector<double> a(std::size_t(s.m * s.k));
  for (std::int64_t m = 0; m < s.m; ++m)
    for (std::int64_t k = 0; k < s.k; ++k)
      a[std::size_t(m * s.k + k)] = ops.problem.mode == Mode::w4a4 ? ops.a_fp4.block_value(m, k)
                                                                   : ops.a_bf16.at(m, k);
  return a;
}

// B_hat as doubles, N x K.
std::vector<double> weight_values(const GemmOperands& ops) {
  const GemmShape& s = ops.problem.shape;
  std::vector<double> b(std::size_t(s.n * s.k));
  for (std::int64_t n = 0; n < s.n; ++n)
    for (std::int64_t k = 0; k < s.k; ++k) b[std::size_t(n * s.k + k)] = ops.b.block_value(n, k);
  return b;
}

float round_to(DType dtype, double value) {
  const float f = float(value);  // one rounding, to fp32 ...
  switch (dtype) {               // ... and for 16-bit outputs a second, as every backend does
    case DType::f32: return f;
    case DType::bf16: return bf16_to_float(bf16_from_float(f));
    case DType::f16: return fp16_to_float(fp16_from_float(f));
  }
  return f;
}

}  // namespace

ReferenceResult reference_gemm(const GemmOperands& ops) {
  ops.validate();
  const GemmShape& s = ops.problem.shape;
  const std::vector<double> a = activation_values(ops);
  const std::vector<double> b = weight_values(ops);
  const double alpha = ops.alpha_total();

  ReferenceResult r;
  r.exact.resize(std::size_t(s.m * s.n));
  r.rounded.resize(r.exact.size());
  r.abs_sum.resize(r.exact.size());
  cpu::parallel_for(s.m, [&](std::int64_t m_begin, std::int64_t m_end) {
    for (std::int64_t m = m_begin; m < m_end; ++m) {
      for (std::int64_t n = 0; n < s.n; ++n) {
        const double* a_row = &a[std::size_t(m * s.k)];
        const double* b_row = &b[std::size_t(n * s.k)];
        double sum = 0.0, abs_sum = 0.0;
        for (std::int64_t k = 0; k < s.k; ++k) {
          const double product = a_row[k] * b_row[k];  // exact: 8 x 6 significant bits at most
          sum += product;
          abs_sum += std::fabs(product);
        }
        const std::size_t i = std::size_t(m * s.n + n);
        r.exact[i] = alpha * sum;
        r.rounded[i] = round_to(ops.problem.out_dtype, r.exact[i]);
        r.abs_sum[i] = std::fabs(alpha) * abs_sum;
      }
    }
  });
  return r;
}

}  // namespace fp4gemm
