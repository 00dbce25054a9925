// Shared checks of fp4gemm's GPU kernel backends (see kernel_checks.hpp).
#include "cuda/kernel_checks.hpp"

#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "check/verify.hpp"
#include "fp4gemm/codecs.hpp"
#include "fp4gemm/layout.hpp"
#include "format/fp4_tensor_builder.hpp"

namespace fp4gemm::test {
namespace {

std::vector<std::uint32_t> bits_of(const std::vector<float>& v) {
  std::vector<std::uint32_t> bits(v.size());
  std::memcpy(bits.data(), v.data(), v.size() * sizeof(float));
  return bits;
}

// Poison, run, read back; then again, which must give the same bits.
std::vector<float> run_twice(const Backend& backend, const GemmOperands& ops) {
  const std::unique_ptr<GemmRun> run = backend.prepare(ops);
  run->poison_output();
  run->run();
  run->synchronize();
  const std::vector<float> d = run->output();
  run->poison_output();
  run->run();
  run->synchronize();
  EXPECT_EQ(bits_of(d), bits_of(run->output())) << "a second run gave other bits";
  return d;
}

GemmOperands representable_operands(const GemmProblem& problem, std::mt19937_64& rng) {
  const GemmShape& s = problem.shape;
  const int block = block_size(problem.format);
  // Scale codes of 1 and 2: E4M3 0x38 / 0x40, UE8M0 127 / 128.
  const std::uint8_t one = problem.format == Fp4Format::nvfp4 ? 0x38 : 127;
  const std::uint8_t two = problem.format == Fp4Format::nvfp4 ? 0x40 : 128;
  auto tensor = [&](std::int64_t rows) {
    std::vector<std::uint8_t> codes(std::size_t(rows * s.k)), scales(std::size_t(rows * s.k / block));
    for (auto& code : codes) code = std::uint8_t(rng() & 15);
    for (auto& scale : scales) scale = (rng() & 1) ? two : one;
    return with_scale_layout(make_fp4_tensor(problem.format, rows, s.k, codes, scales, 1.0f),
                             problem.scale_layout);
  };
  GemmOperands ops;
  ops.problem = problem;
  ops.b = tensor(s.n);
  if (problem.mode == Mode::w4a4) {
    ops.a_fp4 = tensor(s.m);
  } else {
    std::vector<std::uint16_t> a(std::size_t(s.m * s.k));
    for (auto& x : a) x = bf16_from_float(float(int(rng() % 17) - 8));
    ops.a_bf16 = HostMatrix::from_half(DType::bf16, s.m, s.k, std::move(a));
  }
  return ops;
}

}  // namespace

std::uint64_t fresh_seed() { return std::random_device{}() * 0x100000001ull + std::random_device{}(); }

std::vector<Combo> all_combos() {
  std::vector<Combo> combos;
  for (Mode mode : {Mode::w4a4, Mode::w4a16})
    for (Fp4Format format : {Fp4Format::nvfp4, Fp4Format::mxfp4})
      for (ScaleLayout layout : {ScaleLayout::linear, ScaleLayout::swizzled})
        for (DType out : {DType::f32, DType::bf16, DType::f16}) combos.push_back({mode, format, layout, out});
  return combos;
}

std::string combo_name(const testing::TestParamInfo<Combo>& info) {
  const Combo& c = info.param;
  return fmt::format("{}_{}_{}_{}", to_string(c.mode), to_string(c.format), to_string(c.layout),
                     to_string(c.out));
}

GemmProblem problem_of(const Combo& c, std::int64_t m, std::int64_t n, std::int64_t k) {
  return {{m, n, k}, c.mode, c.format, c.layout, c.out};
}

namespace {

// Checks `backend` on fresh random operands of `problem`, changed by `adjust` (what `what` says),
// against the CPU reference: D within the accuracy bound, and not all zeros. A draw for which an
// all-zero D would pass the bound is replaced by the next, so that "not all zeros" means
// something: a tiny problem's products can all vanish or all lie below what the bound requires
// (1 x 1 x 16 w4a4: 41 seeds in 10,000 quantize A or B to zeros; an MXFP4 1 x 1 x 32 draw with a
// nonzero reference below the bf16 kernels' product range was seen on the H200).
template <class Adjust>
void check_random_draw(const Backend& backend, const GemmProblem& problem, const std::string& what, Adjust adjust) {
  ASSERT_TRUE(backend.can_implement(problem)) << backend.can_implement(problem).reason;
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::uint64_t seed = fresh_seed();
    GemmOperands ops = random_operands(problem, seed);
    adjust(ops);
    const ReferenceResult reference = reference_gemm(ops);
    const std::vector<float> zeros(reference.rounded.size(), 0.0f);
    if (verify_output(zeros, reference, problem, backend.accuracy()).passed) continue;

    SCOPED_TRACE(fmt::format("{} {} {} seed {}", backend.name(), problem.describe(), what, seed));
    const std::vector<float> d = run_twice(backend, ops);
    const VerifyResult v = verify_output(d, reference, problem, backend.accuracy());
    EXPECT_TRUE(v.passed) << v.failure << " (" << v.violations << " over the bound, " << v.unwritten
                          << " unwritten, " << v.non_finite << " non-finite, worst ratio "
                          << v.worst_ratio << ")";
    bool any_nonzero = false;
    for (float x : d) any_nonzero |= x != 0.0f;
    EXPECT_TRUE(any_nonzero) << "output is all zeros";
    return;
  }
  ADD_FAILURE() << "100 random draws of " << problem.describe() << " all passed with an all-zero output";
}

}  // namespace

void check_random(const Backend& backend, const GemmProblem& problem, float alpha) {
  check_random_draw(backend, problem, fmt::format("alpha {}", alpha), [&](GemmOperands& ops) { ops.alpha = alpha; });
}

void check_random_scaled_activations(const Backend& backend, const GemmProblem& problem, int exponent) {
  ASSERT_EQ(problem.mode, Mode::w4a16);
  check_random_draw(backend, problem, fmt::format("activations x 2^{}", exponent), [&](GemmOperands& ops) {
    for (std::uint16_t& a : ops.a_bf16.half) a = bf16_from_float(std::ldexp(bf16_to_float(a), exponent));
  });
}

void check_random_fp4_activations_only(const Backend& backend, const GemmProblem& problem) {
  ASSERT_EQ(problem.mode, Mode::w4a4);
  check_random_draw(backend, problem, "FP4 activations only", [](GemmOperands& ops) { ops.a_bf16 = HostMatrix{}; });
}

void check_bit_exact(const Backend& backend, const GemmProblem& problem, std::mt19937_64& rng) {
  SCOPED_TRACE(fmt::format("{} {}", backend.name(), problem.describe()));
  const GemmOperands ops = representable_operands(problem, rng);
  const ReferenceResult reference = reference_gemm(ops);
  const std::vector<float> d = run_twice(backend, ops);
  std::int64_t mismatches = 0;
  std::string first;
  const std::int64_t n = problem.shape.n;
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (d[i] == reference.rounded[i]) continue;
    if (mismatches++ == 0)
      first = fmt::format("D[{}][{}] = {} but R = {}", std::int64_t(i) / n, std::int64_t(i) % n, d[i],
                          reference.rounded[i]);
  }
  EXPECT_EQ(mismatches, 0) << first;
}

void check_chain_gives_the_bits_of_one_call(GemmRun& run) {
  run.poison_output();
  run.run();
  const std::vector<float> once = run.output();
  for (int i = 0; i < 200; ++i) run.run();
  run.poison_output();
  run.run();
  const std::vector<float> after_chain = run.output();
  ASSERT_EQ(once.size(), after_chain.size());
  EXPECT_EQ(0, std::memcmp(once.data(), after_chain.data(), once.size() * sizeof(float)))
      << "the call after 200 back-to-back calls gave other bits";
}

void check_availability(const Backend& backend, bool (*supported)(const GpuInfo&),
                        const std::string& need) {
  const Verdict available = backend.availability();
  if (!cuda_device_present()) {
    EXPECT_FALSE(available);
    EXPECT_NE(available.reason.find("no CUDA device"), std::string::npos) << available.reason;
    return;
  }
  const std::vector<GpuInfo> gpus = query_gpus();
  ASSERT_FALSE(gpus.empty());
  if (!supported(gpus[0])) {
    EXPECT_FALSE(available);
    EXPECT_NE(available.reason.find(need), std::string::npos) << available.reason;
  } else {
    EXPECT_TRUE(available) << available.reason;
  }
}

void check_bf16_mma_accuracy(const Backend& backend) {
  const Accuracy a = backend.accuracy();
  EXPECT_TRUE(a.exact);
  EXPECT_EQ(a.input_relative_error, 0.0);
  EXPECT_EQ(a.accumulation_unit, 0x1p-23);
}

}  // namespace fp4gemm::test
