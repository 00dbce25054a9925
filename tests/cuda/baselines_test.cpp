// The vendor baselines (cublas-bf16, cublaslt-fp8, cublaslt-nvfp4) against the CPU reference,
// their refusals, and query_gpus(). GPU cases skip where there is no CUDA device; the refusal
// and no-device cases need none.
#include <gtest/gtest.h>

#include <cstdio>
#include <exception>
#include <regex>
#include <string>

#include <fmt/format.h>

#include "baselines/cublas_16bit.hpp"
#include "check/verify.hpp"
#include "expect_error.hpp"
#include "fp4gemm/codecs.hpp"
#include "fp4gemm/error.hpp"
#include "fp4gemm/backend.hpp"
#include "fp4gemm/device.hpp"

namespace fp4gemm {
namespace {

// 10 * major + minor of device 0, 0 without a device.
int sm_of_device0() {
  const std::vector<GpuInfo> gpus = query_gpus();
  return gpus.empty() ? 0 : gpus[0].sm_major * 10 + gpus[0].sm_minor;
}

// ---------------------------------------------------------------- query_gpus

TEST(GpuInfo, NoDeviceGivesTheRuntimeReason) {
  if (cuda_device_present()) GTEST_SKIP() << "a CUDA device is present";
  std::string why;
  EXPECT_TRUE(query_gpus(&why).empty());
  EXPECT_TRUE(why.starts_with("no CUDA device (cudaGetDeviceCount: ")) << why;
}

TEST(GpuInfo, DevicesHaveSaneFields) {
  if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  std::string why = "not cleared";
  const std::vector<GpuInfo> gpus = query_gpus(&why);
  ASSERT_FALSE(gpus.empty());
  EXPECT_TRUE(why.empty()) << why;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const GpuInfo& g = gpus[i];
    std::printf("[ gpu      ] %d: %s sm_%d%d, %d SMs, %.1f GiB, smem/block %d B, L2 %d B, SM %d MHz, "
                "memory %d MHz x %d bits, driver %s\n",
                g.index, g.name.c_str(), g.sm_major, g.sm_minor, g.multiprocessors, g.memory_gib,
                g.smem_per_block_optin, g.l2_bytes, g.sm_clock_mhz, g.memory_clock_mhz,
                g.memory_bus_bits, g.driver.c_str());
    EXPECT_EQ(g.index, int(i));
    EXPECT_FALSE(g.name.empty());
    EXPECT_GE(g.sm_major, 7);
    EXPECT_GT(g.multiprocessors, 0);
    EXPECT_GT(g.memory_gib, 1.0);
    EXPECT_GE(g.smem_per_block_optin, 48 * 1024);
    EXPECT_GT(g.l2_bytes, 0);
    EXPECT_GT(g.sm_clock_mhz, 500);
    EXPECT_GT(g.memory_clock_mhz, 0);
    EXPECT_GE(g.memory_bus_bits, 64);
    EXPECT_TRUE(std::regex_match(g.driver, std::regex(R"(\d+\.\d+)"))) << g.driver;
    if (g.name.find("H200") != std::string::npos) {  // the project's device: datasheet figures
      EXPECT_EQ(g.sm_major * 10 + g.sm_minor, 90);
      EXPECT_EQ(g.multiprocessors, 132);
      EXPECT_EQ(g.smem_per_block_optin, 227 * 1024);
      EXPECT_GT(g.memory_gib, 130.0);
    }
  }
}

// ---------------------------------------------------------------- availability and refusals

TEST(Baselines, AvailableWhereTheArchitectureAllows) {
  const int sm = sm_of_device0();
  const Verdict bf16 = find_backend("cublas-bf16").availability();
  const Verdict fp8 = find_backend("cublaslt-fp8").availability();
  EXPECT_EQ(bf16.ok, sm >= 80) << bf16.reason;
  EXPECT_EQ(fp8.ok, sm >= 89) << fp8.reason;
  if (sm == 0) {
    EXPECT_TRUE(bf16.reason.starts_with("no CUDA device (cudaGetDeviceCount: ")) << bf16.reason;
  }
}

TEST(Baselines, Nvfp4UnavailableBeforeBlackwell) {
  const int sm = sm_of_device0();
  if (sm >= 100) GTEST_SKIP() << "Blackwell: availability is the heuristic probe's answer";
  const Verdict v = find_backend("cublaslt-nvfp4").availability();
  EXPECT_FALSE(v.ok);
  if (sm > 0) {
    EXPECT_EQ(v.reason, fmt::format("needs sm_100/sm_120 (Blackwell); this GPU is sm_{}", sm));
  }
  std::printf("[ nvfp4    ] cublaslt-nvfp4: %s\n", v.reason.c_str());
}

GemmProblem problem(std::int64_t m, std::int64_t n, std::int64_t k, Mode mode, Fp4Format format,
                    DType out, ScaleLayout layout = ScaleLayout::linear) {
  return {{m, n, k}, mode, format, layout, out};
}

void expect_refused(std::string_view backend, const GemmProblem& p, std::string_view because) {
  const Verdict v = find_backend(backend).can_implement(p);
  EXPECT_FALSE(v.ok) << backend << " " << p.describe();
  EXPECT_NE(v.reason.find(because), std::string::npos) << v.reason;
}

TEST(Baselines, RefusalsSayWhy) {
  // cuBLAS has no bf16 x bf16 -> f16 GEMM; fp16 operands are exact only for NVFP4 block values.
  expect_refused("cublas-bf16", problem(1, 8, 32, Mode::w4a16, Fp4Format::nvfp4, DType::f16),
                 "no bf16 x bf16 -> f16 GEMM");
  EXPECT_TRUE(find_backend("cublas-bf16")
                  .can_implement(problem(1, 8, 32, Mode::w4a4, Fp4Format::nvfp4, DType::f16)));
  // 16-byte leading dimensions: D' has ld = N, 4 x 2 bytes.
  expect_refused("cublaslt-fp8", problem(1, 4, 32, Mode::w4a4, Fp4Format::nvfp4, DType::bf16),
                 "N a multiple of 8");
  expect_refused("cublaslt-nvfp4", problem(1, 8, 32, Mode::w4a16, Fp4Format::nvfp4, DType::bf16),
                 "use w4a4");
  // K = 16 FP4 elements are 8 bytes.
  expect_refused("cublaslt-nvfp4", problem(1, 8, 16, Mode::w4a4, Fp4Format::nvfp4, DType::f32),
                 "K a multiple of 32");
}

// exact_16bit converts on all hardware threads; its refusal names the first inexact element
// whatever thread finds one first, and the codes of exact values are their bf16 / fp16 bits.
TEST(Baselines, ExactSixteenBitNamesTheFirstInexactElement) {
  std::vector<float> values(1 << 20);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = float(int(i % 512) - 256) * 0.25f;
  const std::vector<std::uint16_t> bf16 = baselines::exact_16bit(values, DType::bf16, "B_hat");
  const std::vector<std::uint16_t> fp16 = baselines::exact_16bit(values, DType::f16, "B_hat");
  for (std::size_t i : {std::size_t(0), std::size_t(777), values.size() - 1}) {
    EXPECT_EQ(bf16[i], bf16_from_float(values[i])) << i;
    EXPECT_EQ(fp16[i], fp16_from_float(values[i])) << i;
  }
  values[700001] = 1.0f + 0x1p-12f;  // 13 significant bits: exact in neither
  values[300001] = 1.0f + 0x1p-10f;  // exact in fp16, not in bf16
  test::expect_error<InvalidArgument>([&] { baselines::exact_16bit(values, DType::bf16, "B_hat"); },
                                      "B_hat[300001] = 1.0009766 is not exact in bf16");
  test::expect_error<InvalidArgument>([&] { baselines::exact_16bit(values, DType::f16, "A_hat"); },
                                      "A_hat[700001] = 1.0002441 is not exact in f16");
}

// ---------------------------------------------------------------- against the reference

// Runs `backend` on random operands of `p`: poison D, check the poison is there, run, and verify
// every element against the reference within the backend's own accuracy bound.
VerifyResult run_and_verify(const Backend& backend, const GemmProblem& p, std::uint64_t seed) {
  const GemmOperands ops = random_operands(p, seed);
  const ReferenceResult reference = reference_gemm(ops);
  const std::unique_ptr<GemmRun> run = backend.prepare(ops);
  run->poison_output();
  run->synchronize();
  const std::vector<float> poisoned = run->output();
  for (const float v : poisoned) EXPECT_TRUE(is_poison(v)) << "poison_output() left " << v;
  run->run();
  run->synchronize();
  const VerifyResult r = verify_output(run->output(), reference, p, backend.accuracy());
  EXPECT_TRUE(r.passed) << backend.name() << " " << p.describe() << ": " << r.failure;
  EXPECT_EQ(r.unwritten, 0);
  EXPECT_FALSE(r.all_zero);
  return r;
}

struct SweepCase {
  const char* backend;
  Mode mode;
  Fp4Format format;
  DType out;
};

class BaselineSweep : public ::testing::TestWithParam<SweepCase> {};

TEST_P(BaselineSweep, MatchesReferenceWithinItsBound) {
  if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  const SweepCase c = GetParam();
  const Backend& backend = find_backend(c.backend);
  const Verdict available = backend.availability();
  if (!available) GTEST_SKIP() << c.backend << ": " << available.reason;
  std::uint64_t seed = 1;
  int ran = 0, refused = 0;
  std::string first_refusal;
  for (const std::int64_t m : {1, 2, 3, 17, 256})
    for (const std::int64_t n : {8, 24, 768})
      for (const std::int64_t k : {32, 64, 2048}) {
        const GemmProblem p = problem(m, n, k, c.mode, c.format, c.out);
        const Verdict v = backend.can_implement(p);
        if (!v) {
          EXPECT_FALSE(v.reason.empty()) << p.describe();
          if (refused++ == 0) first_refusal = v.reason;
          continue;
        }
        ++ran;
        try {  // one shape's failure must not hide the others'
          const VerifyResult r = run_and_verify(backend, p, seed++);
          if (!backend.accuracy().exact)
            std::printf("[ lossy    ] %s %s: norm-wise relative error %.3e (worst element at %.3f of its bound)\n",
                        c.backend, p.describe().c_str(), r.relative_error, r.worst_ratio);
        } catch (const std::exception& e) {
          ADD_FAILURE() << c.backend << " " << p.describe() << " threw: " << e.what();
        }
      }
  std::printf("[ sweep    ] %s %s %s -> %s: %d of 45 shapes run, %d refused%s%s\n", c.backend,
              std::string(to_string(c.format)).c_str(), std::string(to_string(c.mode)).c_str(),
              std::string(to_string(c.out)).c_str(), ran, refused, refused ? ", e.g. " : "",
              first_refusal.c_str());
}

TEST_P(BaselineSweep, SwizzledScalesGiveTheSameProduct) {
  if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  const SweepCase c = GetParam();
  const Backend& backend = find_backend(c.backend);
  const Verdict available = backend.availability();
  if (!available) GTEST_SKIP() << c.backend << ": " << available.reason;
  const GemmProblem p = problem(17, 24, 64, c.mode, c.format, c.out, ScaleLayout::swizzled);
  if (!backend.can_implement(p)) GTEST_SKIP() << p.describe() << " not implemented";
  run_and_verify(backend, p, 99);
}

std::vector<SweepCase> sweep_cases() {
  std::vector<SweepCase> cases;
  for (const char* backend : {"cublas-bf16", "cublaslt-fp8", "cublaslt-nvfp4"})
    for (const Mode mode : {Mode::w4a16, Mode::w4a4})
      for (const Fp4Format format : {Fp4Format::nvfp4, Fp4Format::mxfp4})
        for (const DType out : {DType::f32, DType::bf16, DType::f16})
          cases.push_back({backend, mode, format, out});
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<SweepCase>& info) {
  std::string name = fmt::format("{}_{}_{}_{}", info.param.backend, to_string(info.param.format),
                                 to_string(info.param.mode), to_string(info.param.out));
  for (char& ch : name)
    if (ch == '-') ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Baselines, BaselineSweep, ::testing::ValuesIn(sweep_cases()), case_name);

}  // namespace
}  // namespace fp4gemm
