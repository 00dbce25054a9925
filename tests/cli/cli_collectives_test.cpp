// End-to-end runs of `fp4gemm collectives` that need no GPU: without a GPU, a clear error and
// exit status 1 (no JSON written); bad options, an error naming the option and its rule.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "cli/cli_run.hpp"
#include "fp4gemm/device.hpp"
#include "io/io_test_support.hpp"

namespace fp4gemm {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using test::run_cli;

TEST(CliCollectives, WithoutAGpuIsAClearErrorWithStatusOne) {
  if (cuda_device_present()) GTEST_SKIP() << "a CUDA device is present (tests/cuda run the collectives)";
  const testing_io::TempDir dir;
  const std::string json = (dir.path() / "c.json").string();
  const test::CliResult r = run_cli("collectives --json " + json);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("fp4gemm: error: collectives measures NCCL between GPUs, and there is none here: "));
  EXPECT_FALSE(fs::exists(json));
}

TEST(CliCollectives, BadOptionsNameTheOptionAndTheRule) {
  struct Case {
    std::string arguments, message;
  };
  for (const Case& c : {Case{"--gpus 0", "--gpus 0 must be >= 1"},
                        Case{"--factor 1", "--factor 1 must be >= 2"},
                        Case{"--min-bytes 2", "--min-bytes 2 is below 4 (one float32 element)"},
                        Case{"--min-bytes 4096 --max-bytes 1024", "--max-bytes 1024 is below --min-bytes 4096"},
                        Case{"--ops all_reduce,broadcast", "--ops: 'broadcast' is not a collective"},
                        Case{"--iters 0", "--iters 0 must be >= 1"}}) {
    const test::CliResult r = run_cli("collectives " + c.arguments);
    EXPECT_EQ(r.status, 2) << c.arguments << ": " << r.output;
    EXPECT_THAT(r.output, HasSubstr("fp4gemm: error: " + c.message)) << c.arguments;
  }
}

}  // namespace
}  // namespace fp4gemm
