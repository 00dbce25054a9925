// End-to-end runs of `fp4gemm ceilings` without a GPU (a clear error, exit status 1), bench's
// --ceilings choice, and `fp4gemm run` (exactly N calls of one backend, for outside profilers).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "bench/measured_ceilings.hpp"
#include "cli/cli_run.hpp"
#include "fp4gemm/device.hpp"
#include "io/io_test_support.hpp"

namespace fp4gemm {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using test::run_cli;

class CliCeilingsTest : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // The bench command of these tests: one small CPU case, its JSON in b.json.
  std::string bench(const std::string& ceilings) const {
    return "bench -m 1 -n 64 -k 256 --backend cpu-fast --mode w4a16 --max-seconds 0.02 --json " +
           path("b.json") + " --ceilings " + ceilings;
  }
  testing_io::TempDir dir_;
};

TEST_F(CliCeilingsTest, CeilingsWithoutAGpuIsAClearErrorWithStatusOne) {
  if (cuda_device_present()) GTEST_SKIP() << "a CUDA device is present (tests/cuda measure it)";
  const test::CliResult r = run_cli("ceilings --json " + path("c.json"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("fp4gemm: error: ceilings measures a GPU, and there is none here: "));
  EXPECT_FALSE(fs::exists(path("c.json")));
}

TEST_F(CliCeilingsTest, BenchSaysWhichCeilingsItUsed) {
  const test::CliResult datasheet = run_cli(bench("datasheet"));
  ASSERT_EQ(datasheet.status, 0) << datasheet.output;
  EXPECT_THAT(datasheet.output, HasSubstr("ceilings: "));

  MeasuredCeilings m;
  m.key = {"NVIDIA H200", "580.65.06", 143771};
  m.measured_at = "2026-12-03T10:11:12Z";
  m.read_gbps = {4300, "read kernel"};
  std::ofstream(path("h200.json")) << to_json(m).dump();
  const test::CliResult from_file = run_cli(bench(path("h200.json")) + " --force");
  ASSERT_EQ(from_file.status, 0) << from_file.output;
  EXPECT_THAT(from_file.output, HasSubstr("ceilings: measured 2026-12-03 (" + path("h200.json")));
  std::ifstream in(path("b.json"));
  const nlohmann::json j = nlohmann::json::parse(in);
  // The record has no tensor peaks: those come from the datasheet, and the source says so.
  EXPECT_EQ(j["ceilings"]["source"],
            "measured 2026-12-03 (" + path("h200.json") + " on NVIDIA H200); BF16, FP8 from the datasheet");
  EXPECT_EQ(j["ceilings"]["bf16_tflops"], 989);
  EXPECT_EQ(j["ceilings"]["memory_gbps"], 4300);
}

TEST_F(CliCeilingsTest, BenchCeilingsErrorsNameTheOption) {
  const test::CliResult typo = run_cli(bench("measure"));
  EXPECT_EQ(typo.status, 2) << typo.output;
  EXPECT_THAT(typo.output, HasSubstr("--ceilings 'measure' is not auto, datasheet, measured or an existing file"));
  if (cuda_device_present()) return;  // below: the CPU, which has no measured ceilings
  const test::CliResult measured = run_cli(bench("measured"));
  EXPECT_EQ(measured.status, 2) << measured.output;
  EXPECT_THAT(measured.output, HasSubstr("--ceilings measured: there is no CUDA GPU here"));
  EXPECT_FALSE(fs::exists(path("b.json")));
}

TEST_F(CliCeilingsTest, RunMakesExactlyTheCallsAskedFor) {
  const test::CliResult r = run_cli("run --backend cpu-fast -m 2 -n 64 -k 256 --calls 3");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("ran 3 call(s) of cpu-fast on nvfp4 w4a16 2x64x256 -> bf16"));
  EXPECT_EQ(run_cli("run --backend cpu-fast -m 2 -n 64 -k 256 --calls 0 --mode w4a4").status, 0);
}

TEST_F(CliCeilingsTest, RunErrorsNameTheArgument) {
  const test::CliResult calls = run_cli("run --backend cpu-fast -m 2 -n 64 -k 256 --calls -1");
  EXPECT_EQ(calls.status, 2);
  EXPECT_THAT(calls.output, HasSubstr("--calls = -1 must be >= 0"));
  const test::CliResult k = run_cli("run --backend cpu-fast -m 2 -n 64 -k 100");
  EXPECT_EQ(k.status, 2);
  EXPECT_THAT(k.output, HasSubstr("K = 100 is not a multiple of 16"));
  const test::CliResult backend = run_cli("run --backend nope -m 2 -n 64 -k 256");
  EXPECT_EQ(backend.status, 2);
  EXPECT_THAT(backend.output, HasSubstr("nope"));
}

}  // namespace
}  // namespace fp4gemm
