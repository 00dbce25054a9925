// FP4 tensors as safetensors: round trips of both formats and layouts, the layout of the written
// file, and reading ModelOpt-style checkpoints that carry no fp4gemm metadata.
#include <tuple>

#include "fp4gemm/io.hpp"
#include "io/io_test_support.hpp"

namespace fp4gemm::testing_io {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;

class SafetensorsRoundTrip : public ::testing::TestWithParam<
                                 std::tuple<Fp4Format, ScaleLayout, std::int64_t, std::int64_t>> {};

TEST_P(SafetensorsRoundTrip, GivesBackTheSameTensor) {
  const auto [format, layout, rows, cols] = GetParam();
  const Fp4Tensor t = make_fp4(format, layout, rows, cols);
  expect_same_tensor(parse_fp4_safetensors(serialize_fp4_safetensors(t), "--b"), t);
}

// 3 rows: swizzled rows pad to 128; 130 rows: two row tiles. K = 96: NVFP4 has 6 scale
// columns (swizzled: padded to 8), MXFP4 3 (padded to 4).
INSTANTIATE_TEST_SUITE_P(FormatsLayoutsShapes, SafetensorsRoundTrip,
                         ::testing::Combine(::testing::Values(Fp4Format::nvfp4, Fp4Format::mxfp4),
                                            ::testing::Values(ScaleLayout::linear,
                                                              ScaleLayout::swizzled),
                                            ::testing::Values(3, 130), ::testing::Values(64, 96)));

// The header of a serialized file, and where its data area starts.
std::pair<json, std::size_t> header_of(const Bytes& bytes) {
  std::uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  return {json::parse(bytes.begin() + 8, bytes.begin() + 8 + std::ptrdiff_t(n)), 8 + n};
}

TEST(SafetensorsWrite, Nvfp4LayoutFollowsTheReferenceWriter) {
  const Fp4Tensor t = make_fp4(Fp4Format::nvfp4, ScaleLayout::linear, 3, 64);
  const Bytes bytes = serialize_fp4_safetensors(t);
  const auto [header, data_start] = header_of(bytes);
  EXPECT_EQ(data_start % 8, 0u);
  EXPECT_EQ(header["__metadata__"],
            json({{"format", "nvfp4"}, {"scale_layout", "linear"}, {"producer", "fp4gemm"}}));
  // weight 3 x 32 bytes, then the F32 scalar (8-aligned), then 3 x 4 E4M3 scales.
  EXPECT_EQ(header["weight"], entry("U8", {3, 32}, 0, 96));
  EXPECT_EQ(header["weight_scale_2"], entry("F32", {}, 96, 100));
  EXPECT_EQ(header["weight_scale"], entry("F8_E4M3", {3, 4}, 100, 112));
  EXPECT_EQ(bytes.size(), data_start + 112);
  float scale_2 = 0;
  std::memcpy(&scale_2, bytes.data() + data_start + 96, 4);
  EXPECT_EQ(scale_2, t.scale_2);
}

TEST(SafetensorsWrite, Mxfp4SwizzledHasU8PaddedScalesAndNoTensorScale) {
  const Bytes bytes =
      serialize_fp4_safetensors(make_fp4(Fp4Format::mxfp4, ScaleLayout::swizzled, 3, 64));
  const auto [header, data_start] = header_of(bytes);
  EXPECT_EQ(header["__metadata__"]["format"], "mxfp4");
  EXPECT_EQ(header["__metadata__"]["scale_layout"], "swizzled");
  EXPECT_FALSE(header.contains("weight_scale_2"));
  EXPECT_EQ(header["weight_scale"], entry("U8", {128, 4}, 96, 96 + 512));
}

TEST(SafetensorsWrite, RejectsAnInvalidTensor) {
  Fp4Tensor t = make_fp4(Fp4Format::nvfp4, ScaleLayout::linear, 2, 32);
  t.data.pop_back();
  expect_error<InvalidArgument>([&] { serialize_fp4_safetensors(t); }, "tensor data has 31 bytes");
}

TEST(SafetensorsWrite, WritesAndReadsFiles) {
  TempDir dir;
  const Fp4Tensor t = make_fp4(Fp4Format::nvfp4, ScaleLayout::swizzled, 5, 32);
  write_fp4_safetensors(dir / "w.safetensors", t, false, "--output");
  expect_same_tensor(read_fp4_safetensors(dir / "w.safetensors", "--b"), t);
  expect_error<InvalidArgument>(
      [&] { write_fp4_safetensors(dir / "w.safetensors", t, false, "--output"); },
      "already exists; pass --force to replace it");
  EXPECT_THAT(dir.entries(), ElementsAre("w.safetensors"));
}

// A ModelOpt checkpoint: HuggingFace's {"format": "pt"} metadata, prefixed names, an input
// scale and an unrelated bf16 tensor beside the FP4 weight; scale_2 stored as shape [1].
TEST(SafetensorsRead, InfersNvfp4LinearFromAModelOptCheckpoint) {
  const Fp4Tensor want = make_fp4(Fp4Format::nvfp4, ScaleLayout::linear, 2, 32);
  const std::string p = "model.layers.0.mlp.down_proj.";
  const Bytes bytes =
      checkpoint({{"model.norm.weight", "BF16", {4}, Bytes(8, 0x3F)},
                  {p + "input_scale", "F32", {}, raw_bytes(std::vector<float>{0.5f})},
                  {p + "weight", "U8", {2, 16}, want.data},
                  {p + "weight_scale", "F8_E4M3", {2, 2}, want.scales},
                  {p + "weight_scale_2", "F32", {1}, raw_bytes(std::vector<float>{want.scale_2})}},
                 json{{"format", "pt"}});
  expect_same_tensor(parse_fp4_safetensors(bytes, "--b", p), want);
  expect_error<InvalidArgument>(
      [&] { parse_fp4_safetensors(bytes, "--b"); },
      "missing tensor(s) 'weight', 'weight_scale', 'weight_scale_2'; the file has 5 tensor(s): "
      "'model.layers.0.mlp.down_proj.input_scale'");
}

TEST(SafetensorsRead, InfersTheSwizzledLayoutFromTheScaleShape) {
  const Fp4Tensor want = make_fp4(Fp4Format::nvfp4, ScaleLayout::swizzled, 3, 64);
  const Bytes bytes =
      checkpoint({{"weight", "U8", {3, 32}, want.data},
                  {"weight_scale", "F8_E4M3", {128, 4}, want.scales},
                  {"weight_scale_2", "F32", {}, raw_bytes(std::vector<float>{want.scale_2})}});
  expect_same_tensor(parse_fp4_safetensors(bytes, "--b"), want);
}

// 128 rows and 4 scale columns: both layouts give [128, 4]; ModelOpt's linear is assumed.
TEST(SafetensorsRead, TakesLinearWhenBothLayoutsHaveTheSameShape) {
  const Fp4Tensor want = make_fp4(Fp4Format::nvfp4, ScaleLayout::linear, 128, 64);
  const Bytes bytes =
      checkpoint({{"weight", "U8", {128, 32}, want.data},
                  {"weight_scale", "F8_E4M3", {128, 4}, want.scales},
                  {"weight_scale_2", "F32", {}, raw_bytes(std::vector<float>{want.scale_2})}});
  EXPECT_EQ(parse_fp4_safetensors(bytes, "--b").scale_layout, ScaleLayout::linear);
}

TEST(SafetensorsRead, InfersMxfp4FromE8m0Scales) {
  const Fp4Tensor want = make_fp4(Fp4Format::mxfp4, ScaleLayout::linear, 2, 64);
  const Bytes bytes = checkpoint(
      {{"weight", "U8", {2, 32}, want.data}, {"weight_scale", "F8_E8M0", {2, 2}, want.scales}});
  expect_same_tensor(parse_fp4_safetensors(bytes, "--b"), want);
}

}  // namespace
}  // namespace fp4gemm::testing_io
