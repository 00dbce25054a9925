// Measured ceilings without a GPU: the JSON record, the cache (directory rule, round trip, key
// mismatch), the Ceilings a roofline gets from them (values and source string), bench's
// --ceilings choice, and the table `fp4gemm ceilings` prints.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <optional>

#include "bench/ceilings_cache.hpp"
#include "bench/ceilings_choice.hpp"
#include "bench/measured_ceilings.hpp"
#include "expect_error.hpp"
#include "scoped_env.hpp"
#include "io/io_test_support.hpp"
#include "report/ceilings_report.hpp"

namespace fp4gemm {
namespace {

using test::ScopedEnv;

using ::testing::HasSubstr;

MeasuredCeilings h200_record() {
  MeasuredCeilings m;
  m.key = {"NVIDIA H200", "580.65.06", 143771};
  m.measured_at = "2026-12-03T10:11:12Z";
  m.read_gbps = {4312.5, "read-only kernel"};
  m.copy_gbps = {3900, "cudaMemcpyAsync"};
  m.bf16_tflops = {785, "cublas-bf16"};
  m.fp8_tflops = {1421, "cublaslt-fp8"};
  m.fp4_tflops = {0, "none: no FP4 tensor cores (sm_90)"};
  return m;
}

// A cache in a fresh directory, through FP4GEMM_CACHE_DIR.
class CeilingsCacheTest : public ::testing::Test {
 protected:
  testing_io::TempDir dir_;
  ScopedEnv cache_{"FP4GEMM_CACHE_DIR", dir_.path().c_str()};
};

TEST(MeasuredCeilings, JsonRoundTrip) {
  const MeasuredCeilings m = h200_record();
  const nlohmann::json j = nlohmann::json::parse(to_json(m).dump());
  EXPECT_EQ(j["schema"], "fp4gemm.ceilings/1");
  const MeasuredCeilings back = measured_ceilings_from_json(j, "test");
  EXPECT_EQ(back.key, m.key);
  EXPECT_EQ(back.measured_at, m.measured_at);
  EXPECT_DOUBLE_EQ(back.read_gbps.value, 4312.5);
  EXPECT_EQ(back.fp4_tflops.method, "none: no FP4 tensor cores (sm_90)");
}

TEST(MeasuredCeilings, RejectsOtherFiles) {
  test::expect_error<IoError>([&] { measured_ceilings_from_json({{"schema", "fp4gemm.bench/2"}}, "x.json"); }, "x.json: not an fp4gemm ceilings file");
  nlohmann::json j = nlohmann::json::parse(to_json(h200_record()).dump());
  j.erase("read_gbps");
  test::expect_error<IoError>([&] { measured_ceilings_from_json(j, "x.json"); }, "x.json: malformed ceilings record");
  j = nlohmann::json::parse(to_json(h200_record()).dump());
  j["fp8_tflops"]["value"] = -1;
  test::expect_error<IoError>([&] { measured_ceilings_from_json(j, "x.json"); }, "fp8_tflops.value = -1 must be >= 0");
}

TEST(MeasuredCeilings, RooflineUsesTheMeasuredValuesAndSaysSo) {
  const Ceilings c = as_ceilings(h200_record(), lookup_ceilings("NVIDIA H200"));
  EXPECT_EQ(c.source, "measured 2026-12-03 (fp4gemm ceilings)");
  EXPECT_DOUBLE_EQ(c.memory_gbps, 4312.5);  // the read bandwidth, not the copy's
  EXPECT_DOUBLE_EQ(c.bf16_tflops, 785);
  EXPECT_DOUBLE_EQ(c.fp8_tflops, 1421);
  EXPECT_DOUBLE_EQ(c.fp4_tflops, 0);  // none measured, none on the datasheet
  EXPECT_EQ(c.memory, "HBM3e");
  EXPECT_THAT(c.describe(), HasSubstr("measured 2026-12-03 (fp4gemm ceilings) (HBM3e 4312.5 GB/s; "
                                      "dense TFLOPS BF16 785, FP8 1421, FP4 none)"));
}

TEST(MeasuredCeilings, MissingPeaksComeFromTheDatasheetAndTheSourceSaysSo) {
  MeasuredCeilings m = h200_record();
  m.key.gpu = "NVIDIA B200";
  m.fp8_tflops = {0, "not measured: cuBLASLt had no algorithm"};
  const Ceilings c = as_ceilings(m, lookup_ceilings("NVIDIA B200"));
  EXPECT_DOUBLE_EQ(c.fp8_tflops, 4500);
  EXPECT_DOUBLE_EQ(c.fp4_tflops, 9000);
  EXPECT_EQ(c.source, "measured 2026-12-03 (fp4gemm ceilings); FP8, FP4 from the datasheet");
  // A GPU the table does not know: the memory is just "DRAM".
  EXPECT_EQ(as_ceilings(m, lookup_ceilings("Mystery GPU")).memory, "DRAM");
}

TEST(CeilingsCache, DirectoryFollowsTheVariablesInOrder) {
  ScopedEnv cache("FP4GEMM_CACHE_DIR", "/c/fp4"), xdg("XDG_CACHE_HOME", "/x"), home("HOME", "/h");
  EXPECT_EQ(ceilings_cache_dir(), std::filesystem::path("/c/fp4"));
  ScopedEnv empty_cache("FP4GEMM_CACHE_DIR", "");  // empty counts as unset
  EXPECT_EQ(ceilings_cache_dir(), std::filesystem::path("/x/fp4gemm"));
  ScopedEnv no_xdg("XDG_CACHE_HOME", nullptr);
  EXPECT_EQ(ceilings_cache_dir(), std::filesystem::path("/h/.cache/fp4gemm"));
  ScopedEnv no_home("HOME", nullptr);
  EXPECT_EQ(ceilings_cache_dir(), std::nullopt);
  test::expect_error<IoError>([&] { store_cached_ceilings(h200_record()); }, "set FP4GEMM_CACHE_DIR");
  EXPECT_EQ(load_cached_ceilings(h200_record().key), std::nullopt);
}

TEST(CeilingsCache, FileNameHoldsTheWholeKey) {
  EXPECT_EQ(ceilings_cache_file("/d", h200_record().key),
            std::filesystem::path("/d/ceilings-nvidia-h200-driver-580-65-06-143771mib.json"));
}

TEST_F(CeilingsCacheTest, RoundTrip) {
  const MeasuredCeilings m = h200_record();
  const std::filesystem::path path = store_cached_ceilings(m);
  EXPECT_EQ(path.parent_path(), dir_.path());
  const std::optional<MeasuredCeilings> back = load_cached_ceilings(m.key);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->key, m.key);
  EXPECT_DOUBLE_EQ(back->fp8_tflops.value, 1421);
  // A second measurement replaces the first.
  MeasuredCeilings newer = m;
  newer.read_gbps.value = 4400;
  store_cached_ceilings(newer);
  EXPECT_DOUBLE_EQ(load_cached_ceilings(m.key)->read_gbps.value, 4400);
}

TEST_F(CeilingsCacheTest, AnotherKeyFindsNothing) {
  const MeasuredCeilings m = h200_record();
  store_cached_ceilings(m);
  CeilingsKey other_driver = m.key;
  other_driver.driver = "580.95.05";
  EXPECT_EQ(load_cached_ceilings(other_driver), std::nullopt);
  CeilingsKey other_memory = m.key;
  other_memory.memory_mib = 81559;
  EXPECT_EQ(load_cached_ceilings(other_memory), std::nullopt);
  // A file under this key's name that records another key (edited, or a name collision).
  CeilingsKey punctuated = m.key;
  punctuated.driver = "580-65-06";  // the same file name as 580.65.06
  EXPECT_EQ(ceilings_cache_file(dir_.path(), punctuated), ceilings_cache_file(dir_.path(), m.key));
  EXPECT_EQ(load_cached_ceilings(punctuated), std::nullopt);
}

TEST_F(CeilingsCacheTest, CorruptFileIsAnErrorNamingIt) {
  const std::filesystem::path path = ceilings_cache_file(dir_.path(), h200_record().key);
  std::ofstream(path) << "{not json";
  test::expect_error<IoError>([&] { load_cached_ceilings(h200_record().key); }, "ceilings cache file '" + path.string());
}

TEST_F(CeilingsCacheTest, BenchChoosesMeasuredWhenCachedElseTheDatasheet) {
  const MeasuredCeilings m = h200_record();
  EXPECT_EQ(choose_ceilings("auto", m.key, "cpu").source, "datasheet: NVIDIA H200 SXM");
  test::expect_error<InvalidArgument>([&] { choose_ceilings("measured", m.key, "cpu"); }, "--ceilings measured: no measured ceilings for NVIDIA H200, driver 580.65.06, 143771 MiB");
  store_cached_ceilings(m);
  EXPECT_EQ(choose_ceilings("auto", m.key, "cpu").source, "measured 2026-12-03 (fp4gemm ceilings)");
  EXPECT_EQ(choose_ceilings("measured", m.key, "cpu").source, "measured 2026-12-03 (fp4gemm ceilings)");
  EXPECT_EQ(choose_ceilings("datasheet", m.key, "cpu").source, "datasheet: NVIDIA H200 SXM");
  // Another driver: the measurement is not this GPU's any more.
  CeilingsKey updated = m.key;
  updated.driver = "590.10";
  EXPECT_EQ(choose_ceilings("auto", updated, "cpu").source, "datasheet: NVIDIA H200 SXM");
}

TEST_F(CeilingsCacheTest, WithoutAGpuThereAreNoMeasuredCeilings) {
  EXPECT_EQ(choose_ceilings("auto", std::nullopt, "AMD EPYC 7B13").source, "none known");
  EXPECT_EQ(choose_ceilings("datasheet", std::nullopt, "AMD EPYC 7B13").source, "none known");
  test::expect_error<InvalidArgument>([&] { choose_ceilings("measured", std::nullopt, "AMD EPYC 7B13"); }, "--ceilings measured: there is no CUDA GPU here");
}

TEST_F(CeilingsCacheTest, ChoiceOfAFile) {
  const std::filesystem::path file = dir_ / "b200.json";
  MeasuredCeilings m = h200_record();
  m.key.gpu = "NVIDIA B200";
  std::ofstream(file) << to_json(m).dump();
  const Ceilings c = choose_ceilings(file.string(), std::nullopt, "cpu");
  EXPECT_EQ(c.source, "measured 2026-12-03 (" + file.string() + " on NVIDIA B200); FP4 from the datasheet");
  EXPECT_DOUBLE_EQ(c.memory_gbps, 4312.5);
  test::expect_error<InvalidArgument>([&] { choose_ceilings("measure", std::nullopt, "cpu"); }, "--ceilings 'measure' is not auto, datasheet, measured or an existing file");
}

TEST(CeilingsReport, TableSetsMeasuredAgainstTheDatasheet) {
  const std::string table = ceilings_table(h200_record(), lookup_ceilings("NVIDIA H200"));
  EXPECT_THAT(table, HasSubstr("DRAM read"));
  EXPECT_THAT(table, HasSubstr("4312 GB/s"));  // {:.0f} rounds 4312.5 to even
  EXPECT_THAT(table, HasSubstr("4800 GB/s"));
  EXPECT_THAT(table, HasSubstr("90%"));        // 4312.5 / 4800
  EXPECT_THAT(table, HasSubstr("79%"));        // 785 / 989
  EXPECT_THAT(table, HasSubstr("none: no FP4 tensor cores (sm_90)"));
  const std::string unknown = ceilings_table(h200_record(), lookup_ceilings("Mystery GPU"));
  EXPECT_THAT(unknown, HasSubstr("unknown"));
}

}  // namespace
}  // namespace fp4gemm
