// `check` must catch the failures seen in the field. Each faulty backend below wraps the CPU
// reference but breaks one thing the way real backends have broken; run_check (the engine of
// `fp4gemm check`) must report FAIL for it on every problem where the fault changes D, and PASS
// for the unbroken wrapper.
#include <gtest/gtest.h>

#include <functional>

#include "check/check_runner.hpp"
#include "cpu/host_gemm_run.hpp"
#include "fp4gemm/codecs.hpp"
#include "fp4gemm/layout.hpp"

namespace fp4gemm {
namespace {

using Corrupt = std::function<void(GemmOperands&)>;

class FaultyBackend final : public Backend {
 public:
  FaultyBackend(std::string name, Corrupt corrupt, bool zeros = false)
      : name_(std::move(name)), corrupt_(std::move(corrupt)), zeros_(zeros) {}
  std::string_view name() const override { return name_; }
  std::string_view summary() const override { return "fault injection"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  Accuracy accuracy() const override { return {true, 0.0, 0x1p-24, "exact"}; }
  Verdict availability() const override { return Verdict::yes(); }
  Verdict can_implement(const GemmProblem&) const override { return Verdict::yes(); }
  std::unique_ptr<GemmRun> prepare(const GemmOperands& operands) const override {
    GemmOperands broken = operands;
    corrupt_(broken);
    const bool zeros = zeros_;
    return std::make_unique<cpu::HostGemmRun>(broken, [zeros](const GemmOperands& ops, std::vector<float>& out) {
      out = reference_gemm(ops).rounded;
      if (zeros) std::fill(out.begin(), out.end(), 0.0f);
    });
  }

 private:
  std::string name_;
  Corrupt corrupt_;
  bool zeros_;
};

// Rewrites B's scale bytes so that the entry for (r, kb) is read from where `wrong_offset`
// says, as a kernel with the wrong layout formula would.
void misread_scales(Fp4Tensor& t, const std::function<std::int64_t(std::int64_t, std::int64_t)>& wrong_offset) {
  const Fp4Tensor original = t;
  for (std::int64_t r = 0; r < t.rows; ++r)
    for (std::int64_t kb = 0; kb < t.scale_cols(); ++kb)
      t.scales[std::size_t(scale_offset(t.scale_layout, r, kb, t.scale_cols()))] =
          original.scales[std::size_t(wrong_offset(r, kb) % std::int64_t(original.scales.size()))];
}

std::vector<GemmProblem> grid(ScaleLayout layout) {
  std::vector<GemmProblem> problems;
  for (Fp4Format format : {Fp4Format::nvfp4, Fp4Format::mxfp4})
    for (Mode mode : {Mode::w4a16, Mode::w4a4})
      problems.push_back({{5, 40, 8 * block_size(format)}, mode, format, layout, DType::f32});
  return problems;
}

void expect_all(const std::vector<CheckRow>& rows, CheckStatus status) {
  ASSERT_FALSE(rows.empty());
  for (const CheckRow& row : rows)
    EXPECT_EQ(row.status, status) << row.backend << " " << row.problem.describe() << ": " << row.verify.failure;
}

TEST(FaultInjection, UnbrokenWrapperPasses) {
  FaultyBackend honest("honest", [](GemmOperands&) {});
  expect_all(run_check(grid(ScaleLayout::swizzled), {&honest}, 7), CheckStatus::pass);
}

TEST(FaultInjection, AllZerosOutputFails) {
  FaultyBackend zeros("zeros", [](GemmOperands&) {}, true);
  const auto rows = run_check(grid(ScaleLayout::linear), {&zeros}, 7);
  expect_all(rows, CheckStatus::fail);
  for (const CheckRow& row : rows) EXPECT_TRUE(row.verify.all_zero);
}

TEST(FaultInjection, TensorScaleReadInWrongDtypeFails) {
  // FlashInfer's SM120 "all zeros": a bf16 global scale read as fp32 (its 16 bits in the low
  // half of a float make a tiny subnormal).
  FaultyBackend wrong_dtype("scale-dtype", [](GemmOperands& ops) {
    ops.b.scale_2 = float_from_bits(bf16_from_float(ops.b.scale_2));
  });
  std::vector<GemmProblem> nvfp4_only;
  for (const GemmProblem& p : grid(ScaleLayout::linear))
    if (p.format == Fp4Format::nvfp4) nvfp4_only.push_back(p);
  expect_all(run_check(nvfp4_only, {&wrong_dtype}, 7), CheckStatus::fail);
}

TEST(FaultInjection, TransposedScalesFail) {
  FaultyBackend transposed("transposed", [](GemmOperands& ops) {
    const std::int64_t rows = ops.b.rows;
    misread_scales(ops.b, [rows](std::int64_t r, std::int64_t kb) { return kb * rows + r; });
  });
  expect_all(run_check(grid(ScaleLayout::linear), {&transposed}, 7), CheckStatus::fail);
}

TEST(FaultInjection, SwizzledScalesReadAsLinearFail) {
  FaultyBackend unswizzled("unswizzled", [](GemmOperands& ops) {
    const std::int64_t cols = ops.b.scale_cols();
    misread_scales(ops.b, [cols](std::int64_t r, std::int64_t kb) { return r * cols + kb; });
  });
  expect_all(run_check(grid(ScaleLayout::swizzled), {&unswizzled}, 7), CheckStatus::fail);
}

}  // namespace
}  // namespace fp4gemm
