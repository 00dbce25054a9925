// End-to-end runs of the fp4gemm binary: every verb's happy path, and bad input giving a clear
// error, a non-zero exit and no output file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "fp4gemm/device.hpp"
#include "fp4gemm/gemm.hpp"
#include "fp4gemm/io.hpp"
#include "fp4gemm/quantize.hpp"
#include "cli/cli_run.hpp"

namespace fp4gemm {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

using Result = test::CliResult;
using test::run_cli;

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("fp4gemm_cli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  HostMatrix write_random_npy(const std::string& name, std::int64_t rows, std::int64_t cols, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal;
    std::vector<float> values(std::size_t(rows * cols));
    for (float& v : values) v = normal(rng);
    HostMatrix m = HostMatrix::from_f32(rows, cols, values);
    write_npy(path(name), m, false, "test");
    return m;
  }
  fs::path dir_;
};

TEST_F(CliTest, HelpForEveryVerb) {
  EXPECT_EQ(run_cli("--help").status, 0);
  for (const char* verb : {"devices", "backends", "check", "bench", "quantize", "gemm", "shapes", "compare", "plan",
                            "ceilings", "run", "collectives"}) {
    const Result r = run_cli(std::string(verb) + " --help");
    EXPECT_EQ(r.status, 0) << verb;
    EXPECT_THAT(r.output, HasSubstr("Usage")) << verb;
  }
}

TEST_F(CliTest, DevicesShowsTheCpu) {
  const Result r = run_cli("devices");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("CPU"));
  EXPECT_THAT(r.output, HasSubstr("GPU"));
}

TEST_F(CliTest, BackendsListsEveryBackendWithAvailability) {
  const Result r = run_cli("backends");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("cpu-reference"));
  EXPECT_THAT(r.output, HasSubstr("cpu-fast"));
}

TEST_F(CliTest, CheckPassesOnCpuFast) {
  const Result r = run_cli("check --backend cpu-fast --shapes 3x17x64,1x5x32");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("PASS  cpu-fast"));
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("FAIL ")));
}

TEST_F(CliTest, BenchWritesTableAndJson) {
  const Result r = run_cli("bench -m 1,2 -n 64 -k 256 --backend cpu-fast --mode w4a16 --max-seconds 0.05 --json " +
                           path("b.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("TFLOPS"));
  EXPECT_THAT(r.output, HasSubstr("% floor"));
  EXPECT_THAT(r.output, HasSubstr("no ceiling: fp4gemm has no CPU peaks"));
  std::ifstream in(path("b.json"));
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["schema"], "fp4gemm.bench/3");
  EXPECT_TRUE(j["ceilings"].contains("source"));
  // The defaults asked for (graph, cold) are recorded; a CPU row is timed stream, hot.
  EXPECT_THAT(r.output, HasSubstr("timing: graph (CUDA-graph replay, launch overhead out), cache cold"));
  EXPECT_EQ(j["timing"]["method"], "graph");
  EXPECT_EQ(j["timing"]["cache"], "cold");
  EXPECT_EQ(j["results"][0]["timing_method"], "stream");
  EXPECT_EQ(j["results"][0]["timer"], "steady-clock");
  EXPECT_EQ(j["results"][0]["cache"], "hot");
  EXPECT_EQ(j["results"][0]["rotations"], 1);
  ASSERT_EQ(j["results"].size(), 2u);
  EXPECT_EQ(j["results"][0]["backend"], "cpu-fast");
  EXPECT_GT(j["results"][1]["median_us"].get<double>(), 0.0);
  EXPECT_EQ(j["results"][1]["verdict"], "no ceiling: fp4gemm has no CPU peaks");
  EXPECT_GT(j["results"][1]["intensity"].get<double>(), 0.0);
}

TEST_F(CliTest, BenchWritesMarkdownAndCsvAndRefusesToOverwrite) {
  const std::string args = "bench -m 1 -n 64 -k 256 --backend cpu-fast --mode w4a16 --max-seconds 0.02 --markdown " +
                           path("b.md") + " --csv " + path("b.csv");
  Result r = run_cli(args);
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream md(path("b.md"));
  const std::string markdown((std::istreambuf_iterator<char>(md)), {});
  EXPECT_THAT(markdown, HasSubstr("# fp4gemm bench"));
  EXPECT_THAT(markdown, HasSubstr("- ceilings: none known for"));
  EXPECT_THAT(markdown, HasSubstr("| M | N | K |"));
  EXPECT_THAT(markdown, HasSubstr("| 1 | 64 | 256 |"));
  std::ifstream csv(path("b.csv"));
  std::string header;
  std::getline(csv, header);
  EXPECT_THAT(header, HasSubstr(",floor_us,efficiency,verdict"));
  r = run_cli(args);
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.output, HasSubstr("already exists; pass --force"));
  EXPECT_EQ(run_cli(args + " --force").status, 0);
}

// An output that cannot be written is refused before anything is measured (the table never
// prints): a missing directory, or an existing file without --force.
TEST_F(CliTest, BenchRefusesAnUnwritableOutputBeforeMeasuring) {
  const std::string bench = "bench -m 1 -n 64 -k 256 --backend cpu-fast --mode w4a16 --max-seconds 0.02 ";
  Result r = run_cli(bench + "--csv " + path("no-such-dir/b.csv"));
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.output, HasSubstr("cannot write --csv '" + path("no-such-dir/b.csv") + "': its directory '" +
                                  path("no-such-dir") + "' does not exist"));
  EXPECT_THAT(r.output, Not(HasSubstr("% floor")));  // no table: nothing was measured
  { std::ofstream(path("b.json")) << "keep me"; }
  r = run_cli(bench + "--json " + path("b.json"));
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.output, HasSubstr("already exists; pass --force"));
  EXPECT_THAT(r.output, Not(HasSubstr("% floor")));  // no table: nothing was measured
}

TEST_F(CliTest, BenchDrawsAPlotAndRefusesToOverwriteIt) {
  const std::string args = "bench -m 1,2 -n 64 -k 256 --backend cpu-fast --mode w4a16 --max-seconds 0.02 --plot " +
                           path("b.svg");
  Result r = run_cli(args);
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream svg_file(path("b.svg"));
  const std::string svg((std::istreambuf_iterator<char>(svg_file)), {});
  EXPECT_THAT(svg, HasSubstr("<svg"));
  EXPECT_THAT(svg, HasSubstr("cpu-fast"));
  EXPECT_THAT(svg, HasSubstr("</svg>"));
  r = run_cli(args);
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.output, HasSubstr("--plot"));
  EXPECT_THAT(r.output, HasSubstr("already exists; pass --force"));
  std::ifstream again(path("b.svg"));
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(again)), {}), svg) << "the refused run changed the file";
}

void write_text(const std::string& file, const std::string& text) { std::ofstream(file) << text; }

std::string bench_file(double median_us) {
  nlohmann::json row = {{"backend", "cuda-mma"}, {"m", 1}, {"n", 768}, {"k", 6144}, {"format", "nvfp4"},
                        {"mode", "w4a16"}, {"scale_layout", "linear"}, {"out_dtype", "bf16"}, {"ran", true},
                        {"median_us", median_us}, {"p10_us", median_us * 0.98}, {"p90_us", median_us * 1.02}};
  return nlohmann::json{{"schema", "fp4gemm.bench/2"}, {"results", nlohmann::json::array({row})}}.dump();
}

TEST_F(CliTest, CompareFlagsChangesBeyondTheNoise) {
  write_text(path("old.json"), bench_file(30));
  write_text(path("new.json"), bench_file(20));
  Result r = run_cli("compare " + path("old.json") + " " + path("new.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("cuda-mma 1x768x6144 nvfp4 w4a16 linear -> bf16"));
  EXPECT_THAT(r.output, HasSubstr("0.667"));
  EXPECT_THAT(r.output, HasSubstr("FASTER"));
  r = run_cli("compare " + path("new.json") + " " + path("old.json"));
  EXPECT_EQ(r.status, 0) << r.output;  // a slower row is reported, not an error
  EXPECT_THAT(r.output, HasSubstr("SLOWER"));
  // A file bench wrote compares with itself: every row within the noise.
  ASSERT_EQ(run_cli("bench -m 1 -n 64 -k 256 --backend cpu-fast --mode w4a16 --max-seconds 0.02 --json " +
                    path("b.json")).status, 0);
  r = run_cli("compare " + path("b.json") + " " + path("b.json"));
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("1 row(s) compared: 0 slower, 0 faster"));
}

TEST_F(CliTest, CompareRejectsBadFilesNamingThem) {
  write_text(path("old.json"), bench_file(30));
  Result r = run_cli("compare " + path("old.json") + " " + path("missing.json"));
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.output, HasSubstr("NEW '" + path("missing.json") + "'"));
  write_text(path("broken.json"), "{\"schema\": ");
  r = run_cli("compare " + path("broken.json") + " " + path("old.json"));
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.output, HasSubstr("OLD '" + path("broken.json") + "' is not valid JSON"));
  write_text(path("other.json"), "{\"schema\": \"something/1\"}");
  r = run_cli("compare " + path("old.json") + " " + path("other.json"));
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.output, HasSubstr("is not an fp4gemm bench JSON file"));
}

TEST_F(CliTest, BenchRejectsBadShapesNamingTheArgument) {
  Result r = run_cli("bench -m 0 -n 64 -k 256 --backend cpu-fast");
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.output, HasSubstr("-m = '0' is not a positive integer"));
  r = run_cli("bench -m 1 -n 64 -k 100 --backend cpu-fast");
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.output, HasSubstr("K = 100 is not a multiple of 16"));
  r = run_cli("bench -m 1 -n 64 --backend cpu-fast");
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.output, HasSubstr("-n and -k go together"));
  r = run_cli("bench -m 1 -n 64 -k 64 --backend no-such-backend");
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.output, HasSubstr("'no-such-backend' is not a backend"));
}

TEST_F(CliTest, BenchGroupedRejectsBadOptionsNamingTheArgument) {
  const struct { const char* args; const char* message; } cases[] = {
      {"bench --grouped -k 256", "--grouped needs -n and -k"},
      {"bench --grouped -n 64 -k 256 --tokens-per-expert 0", "--tokens-per-expert = '0' is not a positive integer"},
      {"bench --grouped -n 64 -k 256 --experts 0", "--experts = 0 must be at least 1"},
      {"bench --grouped -n 64 -k 100", "K = 100 is not a multiple of 16"},
      {"bench --grouped -m 1 -n 64 -k 256", "-m cannot go with --grouped"},
      {"bench --grouped --model glm5 --batch 1", "--grouped cannot go with --model"},
      {"bench --experts 4 -m 1 -n 64 -k 256 --backend cpu-fast", "--experts needs --grouped"},
      {"bench --grouped -n 64 -k 256 --routing zipf:x", "--routing = 'zipf:x' is none of"},
  };
  for (const auto& c : cases) {
    const Result r = run_cli(c.args);
    EXPECT_EQ(r.status, 2) << c.args;
    EXPECT_THAT(r.output, HasSubstr(c.message)) << c.args;
  }
  if (!cuda_device_present()) {  // every grouped backend runs on a GPU
    const Result r = run_cli("bench --grouped -n 64 -k 256");
    EXPECT_EQ(r.status, 2);
    EXPECT_THAT(r.output, HasSubstr("no grouped backend is available here"));
  }
}

// --explain prints auto's choices; a run without auto has none to print, and says so before
// timing anything.
TEST_F(CliTest, BenchExplainNeedsAuto) {
  const Result r = run_cli("bench -m 1 -n 64 -k 256 --backend cpu-fast --explain");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.output, HasSubstr("--explain prints which kernel auto picks"));
  EXPECT_THAT(r.output, testing::Not(HasSubstr("TFLOPS")));
}

TEST_F(CliTest, BenchRejectsBadTimingAndCacheNamingTheArgument) {
  const std::pair<const char*, const char*> bad[] = {
      {"--timing events", "--timing = 'events' is not a timing method (graph, stream or single)"},
      {"--cache warm", "--cache = 'warm' is not a cache state (cold or hot)"}};
  for (const auto& [option, message] : bad) {
    const Result e = run_cli(std::string("bench -m 1 -n 64 -k 64 --backend cpu-fast ") + option);
    EXPECT_EQ(e.status, 2) << option;
    EXPECT_THAT(e.output, HasSubstr(message));
  }
  const Result r = run_cli("bench -m 1 -n 64 -k 64 --backend cpu-fast --mode w4a16 --timing single --cache hot --max-seconds 0.02");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("timing: single (one call per sample"));
  EXPECT_THAT(r.output, HasSubstr("stream "));  // the CPU row's timing cell: always stream
}

TEST_F(CliTest, QuantizeWritesModelOptSafetensors) {
  const HostMatrix x = write_random_npy("w.npy", 4, 64, 1);
  const Result r = run_cli("quantize --input " + path("w.npy") + " --output " + path("w.safetensors"));
  ASSERT_EQ(r.status, 0) << r.output;
  const Fp4Tensor q = read_fp4_safetensors(path("w.safetensors"), "test");
  const Fp4Tensor expected = quantize(x);
  EXPECT_EQ(q.data, expected.data);
  EXPECT_EQ(q.scales, expected.scales);
  EXPECT_EQ(q.scale_2, expected.scale_2);
}

TEST_F(CliTest, QuantizeRefusesToReplaceAnExistingOutput) {
  write_random_npy("w.npy", 4, 64, 1);
  { std::ofstream(path("out.safetensors")) << "keep me"; }
  const Result r = run_cli("quantize --input " + path("w.npy") + " --output " + path("out.safetensors"));
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.output, HasSubstr("already exists"));
  std::ifstream in(path("out.safetensors"));
  std::string content((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(content, "keep me");
  EXPECT_EQ(run_cli("quantize --force --input " + path("w.npy") + " --output " + path("out.safetensors")).status, 0);
}

TEST_F(CliTest, QuantizeBadKLeavesNoOutput) {
  write_random_npy("w.npy", 4, 100, 1);
  const Result r = run_cli("quantize --input " + path("w.npy") + " --output " + path("w.safetensors"));
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.output, HasSubstr("K = 100 is not a multiple of 16"));
  EXPECT_FALSE(fs::exists(path("w.safetensors")));
}

TEST_F(CliTest, GemmMatchesTheReference) {
  const HostMatrix a = write_random_npy("a.npy", 3, 64, 2);
  const HostMatrix b = write_random_npy("b.npy", 5, 64, 3);
  for (const char* mode : {"w4a16", "w4a4"}) {
    const std::string out = path(std::string("d_") + mode + ".npy");
    const Result r = run_cli("gemm --backend cpu-reference --mode " + std::string(mode) + " --a " + path("a.npy") +
                             " --b " + path("b.npy") + " --out " + out);
    ASSERT_EQ(r.status, 0) << r.output;
    GemmOperands ops;
    ops.problem = {{3, 5, 64}, parse_mode(mode), Fp4Format::nvfp4, ScaleLayout::linear, DType::f32};
    ops.b = quantize(b);
    ops.a_bf16 = a.converted(DType::bf16);
    if (ops.problem.mode == Mode::w4a4) ops.a_fp4 = quantize(a);
    const std::vector<float> expected = reference_gemm(ops).rounded;
    const HostMatrix d = read_npy_matrix(out, "test");
    ASSERT_EQ(d.rows, 3);
    ASSERT_EQ(d.cols, 5);
    EXPECT_EQ(d.f32, expected) << mode;
  }
}

TEST_F(CliTest, GemmAcceptsQuantizedWeights) {
  write_random_npy("a.npy", 2, 64, 2);
  write_random_npy("b.npy", 3, 64, 3);
  ASSERT_EQ(run_cli("quantize --input " + path("b.npy") + " --output " + path("b.safetensors")).status, 0);
  const Result from_npy = run_cli("gemm --backend cpu-fast --a " + path("a.npy") + " --b " + path("b.npy") +
                                  " --out " + path("d1.npy"));
  const Result from_st = run_cli("gemm --backend cpu-fast --a " + path("a.npy") + " --b " + path("b.safetensors") +
                                 " --out " + path("d2.npy"));
  ASSERT_EQ(from_npy.status, 0) << from_npy.output;
  ASSERT_EQ(from_st.status, 0) << from_st.output;
  EXPECT_EQ(read_npy_matrix(path("d1.npy"), "t").f32, read_npy_matrix(path("d2.npy"), "t").f32);
}

TEST_F(CliTest, GemmRejectsMismatchedK) {
  write_random_npy("a.npy", 2, 32, 2);
  write_random_npy("b.npy", 3, 64, 3);
  const Result r = run_cli("gemm --a " + path("a.npy") + " --b " + path("b.npy") + " --out " + path("d.npy"));
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.output, HasSubstr("--a has K = 32 columns but --b has K = 64"));
  EXPECT_FALSE(fs::exists(path("d.npy")));
}

TEST_F(CliTest, GemmRejectsUnreadableAndTruncatedFiles) {
  Result r = run_cli("gemm --a " + path("missing.npy") + " --b " + path("missing.npy") + " --out " + path("d.npy"));
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.output, HasSubstr("missing.npy"));
  write_random_npy("b.npy", 3, 64, 3);
  const auto size = fs::file_size(path("b.npy"));
  fs::resize_file(path("b.npy"), size - 10);
  r = run_cli("gemm --a " + path("b.npy") + " --b " + path("b.npy") + " --out " + path("d.npy"));
  EXPECT_NE(r.status, 0);
  EXPECT_THAT(r.output, HasSubstr("b.npy"));
  EXPECT_FALSE(fs::exists(path("d.npy")));
}

TEST_F(CliTest, ShapesListsGlm5GemmsUnderTp8) {
  const Result r = run_cli("shapes --model glm5 --tp 8");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("q_b_proj"));
  EXPECT_THAT(r.output, HasSubstr("kv_a_proj_with_mqa"));
  EXPECT_THAT(r.output, HasSubstr("lm_head"));
  const Result bad = run_cli("shapes --model no-such-model");
  EXPECT_NE(bad.status, 0);
  EXPECT_THAT(bad.output, HasSubstr("no-such-model"));
}

}  // namespace
}  // namespace fp4gemm
