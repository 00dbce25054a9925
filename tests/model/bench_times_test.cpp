// Looking measured GEMM times up in a bench JSON, and the errors for a missing shape or a file
// that is not a bench.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fp4gemm/error.hpp"
#include "model/bench_times.hpp"

namespace fp4gemm {
namespace {

using ::testing::HasSubstr;

nlohmann::json bench_file() {
  return nlohmann::json::parse(R"({"schema": "fp4gemm.bench/2", "results": [
    {"backend": "cpu-fast", "mode": "w4a16", "m": 1, "n": 768, "k": 6144, "ran": true, "median_us": 12.5,
     "verdict": "no ceiling"},
    {"backend": "cpu-fast", "mode": "w4a4", "m": 1, "n": 768, "k": 6144, "ran": true, "median_us": 20},
    {"backend": "cuda-mma", "mode": "w4a16", "m": 4, "n": 768, "k": 6144, "ran": false, "median_us": 0}]})");
}

TEST(BenchTimes, LooksUpByBackendModeAndShape) {
  const BenchTimes t = BenchTimes::from_json(bench_file(), "b.json");
  EXPECT_EQ(t.backends(), std::vector<std::string>{"cpu-fast"});  // rows that did not run are left out
  EXPECT_DOUBLE_EQ(t.at("cpu-fast", Mode::w4a16, {1, 768, 6144}).seconds, 12.5e-6);
  EXPECT_EQ(t.at("cpu-fast", Mode::w4a16, {1, 768, 6144}).verdict, "no ceiling");
  // A GEMM the checkpoint keeps in bf16 is looked up by its shape.
  EXPECT_DOUBLE_EQ(t.timer("cpu-fast", Mode::w4a4)({{1, 768, 6144}, false}), 20e-6);
}

TEST(BenchTimes, MissingShapeIsNamed) {
  const BenchTimes t = BenchTimes::from_json(bench_file(), "--from 'b.json'");
  try {
    t.at("cpu-fast", Mode::w4a16, {64, 768, 6144});
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("--from 'b.json' has no cpu-fast w4a16 row that ran for M x N x K = 64x768x6144"));
  }
  EXPECT_THROW(t.at("cuda-mma", Mode::w4a16, {4, 768, 6144}), InvalidArgument);
}

TEST(BenchTimes, RejectsAFileThatIsNotABench) {
  EXPECT_THROW(BenchTimes::from_json(nlohmann::json::parse(R"({"schema": "fp4gemm.shapes/1"})"), "x"), InvalidArgument);
  EXPECT_THROW(BenchTimes::from_json(nlohmann::json::parse(R"({"schema": "fp4gemm.bench/2", "results": [{"ran": true}]})"),
                                     "x"),
               InvalidArgument);
}

}  // namespace
}  // namespace fp4gemm
