// End-to-end runs of `fp4gemm bench --model` and `fp4gemm plan` on a tiny MoE config on the CPU
// (short time limits, so the whole file runs in seconds), and their errors for bad combinations.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli/cli_run.hpp"
#include "fp4gemm/device.hpp"

namespace fp4gemm {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using test::run_cli;

const std::string kTiny = std::string("--config ") + FP4GEMM_TEST_DATA_DIR + "/model_configs/tiny_moe.json";
const std::string kFast = " --backend cpu-fast --max-seconds 0.02";

class CliModelTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("fp4gemm_cli_model_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    // One bench of the tiny model under tp2 at batches 1 and 4, shared by the tests below.
    bench_ = run_cli("bench " + kTiny + " --tp 2 --batch 1,4 --mode w4a16" + kFast + " --json " + json_path());
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  static std::string json_path() { return (dir_ / "tiny.json").string(); }
  static fs::path dir_;
  static test::CliResult bench_;
};
fs::path CliModelTest::dir_;
test::CliResult CliModelTest::bench_;

TEST_F(CliModelTest, BenchModelReportsPerForwardTotals) {
  ASSERT_EQ(bench_.status, 0) << bench_.output;
  EXPECT_THAT(bench_.output, HasSubstr("batch 4, cpu-fast w4a16: GEMMs per forward"));
  EXPECT_THAT(bench_.output, HasSubstr("us/forward"));
  std::ifstream in(json_path());
  const nlohmann::json j = nlohmann::json::parse(in);
  const nlohmann::json& forwards = j.at("model").at("forwards");
  ASSERT_EQ(forwards.size(), 2u);
  for (const nlohmann::json& f : forwards) {
    double sum = 0, share = 0;
    for (const nlohmann::json& g : f.at("stages").at(0).at("gemms")) {
      EXPECT_NEAR(g.at("forward_us").get<double>(),
                  g.at("per_layer_us").get<double>() * g.at("layers").get<double>(), 1e-9);
      sum += g.at("forward_us").get<double>();
      share += g.at("share").get<double>();
    }
    EXPECT_NEAR(sum, f.at("forward_us").get<double>(), 1e-9);
    EXPECT_NEAR(share, 1.0, 1e-12);
  }
}

TEST_F(CliModelTest, BenchRejectsOptionsOfTheOtherKindOfRun) {
  const auto no_model = run_cli("bench --batch 1");
  EXPECT_EQ(no_model.status, 2);
  EXPECT_THAT(no_model.output, HasSubstr("--batch needs --model or --config"));
  const auto with_n = run_cli("bench --model glm5 -n 768 -k 6144");
  EXPECT_EQ(with_n.status, 2);
  EXPECT_THAT(with_n.output, HasSubstr("-n cannot go with --model/--config"));
  const auto routing = run_cli("bench " + kTiny + " --routing zipf:x");
  EXPECT_EQ(routing.status, 2);
  EXPECT_THAT(routing.output, HasSubstr("--routing = 'zipf:x' is none of"));
}

TEST_F(CliModelTest, PlanMeasuresAndNamesTheWinner) {
  const auto r = run_cli("plan " + kTiny + " --gpus 2 --compare tp2,ep2 --batch 2" + kFast);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("measured in this run"));
  EXPECT_THAT(r.output, HasSubstr("wins:"));
  EXPECT_THAT(r.output, HasSubstr("comm us/layer"));
}

TEST_F(CliModelTest, PlanLooksTimesUpInABenchJson) {
  ASSERT_EQ(bench_.status, 0) << bench_.output;
  const auto r = run_cli("plan " + kTiny + " --gpus 2 --compare tp2 --batch 1,4 --from " + json_path());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("cpu-fast w4a16 from"));
  EXPECT_THAT(r.output, HasSubstr("tp2 is the only plan"));
  // ep2 runs attention on 2 replicas: M = 2 for a batch of 4, which the bench did not time.
  const auto missing = run_cli("plan " + kTiny + " --gpus 2 --compare ep2 --batch 4 --from " + json_path());
  EXPECT_EQ(missing.status, 2);
  EXPECT_THAT(missing.output, HasSubstr("has no cpu-fast w4a16 row that ran for M x N x K = 2x"));
}

TEST_F(CliModelTest, PlanWritesJsonAtomically) {
  const std::string out = (dir_ / "plan.json").string();
  const std::string args = "plan " + kTiny + " --gpus 2 --compare tp2,ep2 --batch 2,3" + kFast + " --json " + out;
  const auto r = run_cli(args);
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream in(out);
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j.at("schema"), "fp4gemm.plan/1");
  EXPECT_EQ(j.at("gpus"), 2);
  EXPECT_EQ(j.at("backend"), "cpu-fast");
  EXPECT_EQ(j.at("gemm_times"), "measured in this run");
  ASSERT_EQ(j.at("batches").size(), 2u);
  for (const nlohmann::json& batch : j.at("batches")) {
    const nlohmann::json& plans = batch.at("plans");
    ASSERT_EQ(plans.size(), 2u);
    EXPECT_EQ(batch.at("winner"), plans.at(0).at("plan"));
    EXPECT_GE(plans.at(0).at("tokens_per_s_per_gpu").get<double>(), plans.at(1).at("tokens_per_s_per_gpu").get<double>());
    EXPECT_THAT(batch.at("verdict").get<std::string>(), HasSubstr("wins:"));
    for (const nlohmann::json& p : plans) {  // forward = m x the slowest stage + bubble
      EXPECT_NEAR(p.at("forward_us").get<double>(),
                  p.at("gemm_us").get<double>() + p.at("comm_us").get<double>() + p.at("bubble_us").get<double>(),
                  1e-6 * p.at("forward_us").get<double>());
      EXPECT_EQ(p.at("stages").size(), 1u);
    }
  }
  const auto again = run_cli(args);
  EXPECT_EQ(again.status, 2);
  EXPECT_THAT(again.output, HasSubstr("already exists; pass --force to replace it"));
  EXPECT_EQ(run_cli(args + " --force").status, 0);
}

TEST_F(CliModelTest, PlanNamesAreChecked) {
  const auto malformed = run_cli("plan " + kTiny + " --gpus 2 --compare tp2x --from " + json_path());
  EXPECT_EQ(malformed.status, 2);
  EXPECT_THAT(malformed.output, HasSubstr("--compare"));
  const auto product = run_cli("plan " + kTiny + " --gpus 2 --compare tp2pp2 --from " + json_path());
  EXPECT_EQ(product.status, 2);
  EXPECT_THAT(product.output, HasSubstr("plan 'tp2pp2' uses 4 GPUs, not --gpus = 2"));
}

TEST_F(CliModelTest, PlanMeasureOptionsAndItsLink) {
  // --measure's own options belong to it; a CPU backend cannot run its layers.
  const auto iters = run_cli("plan " + kTiny + " --gpus 2 --compare tp2 --iters 3 --from " + json_path());
  EXPECT_EQ(iters.status, 2);
  EXPECT_THAT(iters.output, HasSubstr("--iters goes with --measure"));
  const auto cpu = run_cli("plan " + kTiny + " --measure --compare tp2 --backend cpu-fast");
  EXPECT_EQ(cpu.status, 2);
  EXPECT_THAT(cpu.output, HasSubstr("plan --measure runs GPU backends, and cpu-fast computes on the CPU"));
  const auto no_gpus = run_cli("plan " + kTiny + " --compare tp2 --from " + json_path());
  EXPECT_EQ(no_gpus.status, 2);
  EXPECT_THAT(no_gpus.output, HasSubstr("--gpus is required"));

  // A collectives file of 2 GPUs that follows the model exactly: base 5 us, step 1 us, 50 GB/s
  // (all-reduce 7 us + bytes / 50 GB/s; all-to-all 6 us + bytes / 2 / 50 GB/s).
  nlohmann::json results = nlohmann::json::array();
  for (const std::uint64_t bytes : {std::uint64_t(4096), std::uint64_t(1) << 20, std::uint64_t(1) << 33}) {
    results.push_back({{"op", "all_reduce"}, {"bytes", bytes}, {"time_us", 7 + double(bytes) / 50e3}});
    results.push_back({{"op", "all_to_all"}, {"bytes", bytes}, {"time_us", 6 + double(bytes) / 2 / 50e3}});
  }
  const std::string link_file = (dir_ / "collectives.json").string();
  std::ofstream(link_file) << nlohmann::json{{"world_size", 2}, {"results", results}}.dump();
  const auto measured = run_cli("plan " + kTiny + " --gpus 2 --compare tp2 --batch 4 --from " + json_path() +
                                " --link-from " + link_file);
  ASSERT_EQ(measured.status, 0) << measured.output;
  EXPECT_THAT(measured.output, HasSubstr("link measured (fitted to NCCL all_reduce and all_to_all on 2 GPUs)"));
  const auto both = run_cli("plan " + kTiny + " --gpus 2 --compare tp2 --from " + json_path() +
                            " --link nvlink4 --link-from " + link_file);
  EXPECT_EQ(both.status, 2);
  EXPECT_THAT(both.output, HasSubstr("--link and --link-from both name the link"));
}

TEST_F(CliModelTest, PlanMeasureWithoutAGpuSaysSo) {
  if (cuda_device_present()) GTEST_SKIP() << "a CUDA device is present (tests/cuda run plan --measure's ranks)";
  const auto r = run_cli("plan " + kTiny + " --measure --compare tp2 --batch 1");
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.output, HasSubstr("fp4gemm: error: plan --measure runs the plans on GPUs, and there is none here: "));
}

}  // namespace
}  // namespace fp4gemm
