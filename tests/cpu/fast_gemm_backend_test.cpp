// cpu-fast as a Backend: registered, honest about which ISAs this CPU runs, and refusing the
// problems its contract excludes with the rule they break.
#include <gtest/gtest.h>

#include "cpu/fast_gemm.hpp"
#include "fp4gemm/backend.hpp"
#include "fp4gemm/device.hpp"
#include "fp4gemm/error.hpp"

namespace fp4gemm::test {
namespace {

TEST(FastGemmBackend, IsRegisteredAndAvailable) {
  const Backend& backend = find_backend("cpu-fast");
  EXPECT_EQ(backend.device(), DeviceKind::cpu);
  EXPECT_TRUE(backend.availability());
  EXPECT_TRUE(backend.accuracy().exact);
  EXPECT_EQ(backend.accuracy().accumulation_unit, 0x1p-24);
}

TEST(FastGemmBackend, ForcedIsaAvailabilityFollowsTheCpu) {
  const CpuInfo cpu = query_cpu();
  for (const cpu::Isa isa : cpu::kAllIsas) {
    const Verdict expected = cpu::isa_support(isa, cpu);
    const Verdict got = cpu::make_fast_backend(isa)->availability();
    EXPECT_EQ(got.ok, expected.ok) << cpu::to_string(isa);
    EXPECT_TRUE(got || !got.reason.empty()) << "a refusal without a reason";
  }
  EXPECT_TRUE(cpu::isa_support(cpu::Isa::scalar, cpu)) << "the scalar path runs everywhere";
}

TEST(FastGemmBackend, RefusesShapesOutsideTheContract) {
  const auto backend = cpu::make_fast_backend();
  GemmProblem p;
  p.shape = {4, 8, 40};  // K not a multiple of 16
  const Verdict not_a_block = backend->can_implement(p);
  EXPECT_FALSE(not_a_block);
  EXPECT_NE(not_a_block.reason.find("K = 40"), std::string::npos) << not_a_block.reason;
  p.format = Fp4Format::mxfp4;
  p.shape = {4, 8, 48};  // a multiple of 16, not of 32
  EXPECT_FALSE(backend->can_implement(p));
  p.shape = {4, 8, (std::int64_t{1} << 24) + 32};  // beyond the accuracy bound's K
  const Verdict too_long = backend->can_implement(p);
  EXPECT_FALSE(too_long);
  EXPECT_NE(too_long.reason.find("2^24"), std::string::npos) << too_long.reason;
  p.shape = {4, 8, std::int64_t{1} << 24};
  EXPECT_TRUE(backend->can_implement(p));
}

TEST(FastGemmBackend, PrepareRejectsOperandsThatDisagreeWithTheProblem) {
  GemmProblem p;
  p.shape = {2, 4, 32};
  GemmOperands ops = random_operands(p, 1);
  ops.problem.shape.n = 5;
  EXPECT_THROW(cpu::make_fast_backend()->prepare(ops), InvalidArgument);
}

}  // namespace
}  // namespace fp4gemm::test
