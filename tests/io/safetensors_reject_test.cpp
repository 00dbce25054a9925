// Every safetensors rejection rule: the container's (IoError) and the FP4 tensor's
// (InvalidArgument), each with the words of its message.
#include <cmath>
#include <limits>

#include "fp4gemm/io.hpp"
#include "io/io_test_support.hpp"

namespace fp4gemm::testing_io {
namespace {

using nlohmann::json;

// The pieces of a valid NVFP4 tensor of 2 rows and K = 32, without metadata.
const StoredTensor kWeight{"weight", "U8", {2, 16}, Bytes(32, 0x21)};
const StoredTensor kScale{"weight_scale", "F8_E4M3", {2, 2}, Bytes(4, 0x38)};
const StoredTensor kScale2{"weight_scale_2", "F32", {}, raw_bytes(std::vector<float>{0.25f})};

StoredTensor with(StoredTensor t, std::string dtype, std::vector<std::int64_t> shape, Bytes data) {
  t.dtype = std::move(dtype);
  t.shape = std::move(shape);
  t.data = std::move(data);
  return t;
}

// fp4gemm's own metadata for `format` (and `layout`, unless empty).
json ours(std::string_view format, std::string_view layout = "linear") {
  json m = {{"producer", "fp4gemm"}, {"format", format}};
  if (!layout.empty()) m["scale_layout"] = layout;
  return m;
}

// A file whose header length field is `length`, whatever follows.
Bytes with_length(std::uint64_t length, std::string_view rest) {
  Bytes out;
  append_raw(out, length);
  append_bytes(out, rest.data(), rest.size());
  return out;
}

Bytes raw(std::string_view header, std::size_t data_bytes = 0) {
  return safetensors_file(header, Bytes(data_bytes, 0));
}

Bytes one(const json& tensor_entry, std::size_t data_bytes) {
  return safetensors_from_json(json{{"w", tensor_entry}}, Bytes(data_bytes, 0));
}

std::vector<Rejection> rejections() {
  using R = Rejection;
  const std::string bad = "invalid safetensors file: ";
  const float nan = std::numeric_limits<float>::quiet_NaN();
  return {
      // The container.
      {"TooShort", Bytes(5, 0), R::io_error,
       bad + "5 bytes; the header length field alone needs 8"},
      {"HeaderBeyondFile", with_length(100, "{}"), R::io_error,
       bad + "header length 100 exceeds the 2 bytes after the length field"},
      {"HeaderNotAnObject", raw("[1]"), R::io_error, bad + "the header does not start with '{'"},
      {"InvalidJson", raw("{\"w\": }"), R::io_error, bad + "the header is not valid JSON"},
      {"TextAfterJson", raw("{} x"), R::io_error, bad + "the header is not valid JSON"},
      {"DuplicateTensor",
       raw(R"({"w": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]},)"
           R"( "w": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}})",
           1),
       R::io_error, bad + "duplicate key \"w\" in the header"},
      {"DuplicateField",
       raw(R"({"w": {"dtype": "U8", "dtype": "U8", "shape": [1], "data_offsets": [0, 1]}})", 1),
       R::io_error, bad + "duplicate key \"dtype\""},
      {"NestedTooDeep", raw(R"({"w": {"shape": [[1]]}})"), R::io_error, bad + "JSON nested deeper"},
      {"EntryNotAnObject", raw(R"({"w": 3})"), R::io_error, bad + "entry \"w\" is not an object"},
      {"UnknownField",
       one({{"dtype", "U8"}, {"shape", {1}}, {"data_offsets", {0, 1}}, {"x", 1}}, 1), R::io_error,
       bad + "tensor \"w\" has unknown field \"x\""},
      {"MissingField", one({{"dtype", "U8"}, {"shape", {1}}}, 1), R::io_error,
       bad + "tensor \"w\" lacks one of \"dtype\", \"shape\", \"data_offsets\""},
      {"DtypeNotAString", one({{"dtype", 8}, {"shape", {1}}, {"data_offsets", {0, 1}}}, 1),
       R::io_error, bad + "tensor \"w\" dtype is not a string"},
      {"UnknownDtype", one(entry("Q7", {1}, 0, 1), 1), R::io_error,
       bad + "tensor \"w\" has unknown dtype \"Q7\""},
      {"NegativeDimension", one(entry("U8", {-1}, 0, 1), 1), R::io_error,
       bad + "a \"w\" shape entry is not a non-negative 64-bit integer"},
      {"FractionalOffset", one({{"dtype", "U8"}, {"shape", {1}}, {"data_offsets", {0.5, 1}}}, 1),
       R::io_error, bad + "\"w\" begin is not a non-negative 64-bit integer"},
      {"OffsetsNotAPair", one({{"dtype", "U8"}, {"shape", {1}}, {"data_offsets", {0}}}, 1),
       R::io_error, bad + "tensor \"w\" data_offsets is not [begin, end]"},
      {"OffsetsBeyondData", one(entry("U8", {10}, 0, 10), 4), R::io_error,
       bad + "tensor \"w\" data_offsets [0, 10] are not a range inside the 4-byte data area"},
      {"OffsetsReversed", one(entry("U8", {0}, 3, 1), 4), R::io_error,
       bad + "tensor \"w\" data_offsets [3, 1] are not a range"},
      {"ElementCountOverflows", one(entry("U8", {4611686018427387904, 4}, 0, 0), 0), R::io_error,
       bad + "tensor \"w\" of shape [4611686018427387904, 4] and dtype U8 is not a whole number "
             "of bytes that fits 64 bits"},
      {"SubByteRemainder", one(entry("F4", {3}, 0, 1), 1), R::io_error,
       bad + "tensor \"w\" of shape [3] and dtype F4 is not a whole number of bytes"},
      {"ByteCountMismatch", one(entry("U8", {2, 3}, 0, 5), 5), R::io_error,
       bad + "tensor \"w\" of shape [2, 3] and dtype U8 needs 6 bytes; data_offsets [0, 5] hold 5"},
      {"Gap",
       safetensors_from_json(json{{"a", entry("U8", {2}, 0, 2)}, {"b", entry("U8", {1}, 3, 4)}},
                             Bytes(4, 0)),
       R::io_error, bad + "data bytes [2, 3) belong to no tensor (before \"b\")"},
      {"Overlap",
       safetensors_from_json(json{{"a", entry("U8", {2}, 0, 2)}, {"b", entry("U8", {2}, 1, 3)}},
                             Bytes(3, 0)),
       R::io_error, bad + "tensor \"b\" overlaps the tensor before it"},
      {"DataAfterTheLastTensor", one(entry("U8", {2}, 0, 2), 5), R::io_error,
       bad + "the last 3 bytes of the data area belong to no tensor"},
      {"MetadataNotAnObject", raw(R"({"__metadata__": 3})"), R::io_error,
       bad + "\"__metadata__\" is not an object"},
      {"MetadataValueNotAString", raw(R"({"__metadata__": {"k": 1}})"), R::io_error,
       bad + "\"__metadata__\" value \"k\" is not a string"},
      // The FP4 tensor.
      {"MissingTensorScale", checkpoint({kWeight, kScale}), R::invalid_argument,
       "missing tensor(s) 'weight_scale_2'; the file has 2 tensor(s): 'weight', 'weight_scale'"},
      {"EmptyFile", checkpoint({}), R::invalid_argument,
       "missing tensor(s) 'weight', 'weight_scale', 'weight_scale_2'; the file has 0 tensor(s)"},
      {"WeightNotU8", checkpoint({with(kWeight, "F16", {2, 8}, Bytes(32, 0)), kScale, kScale2}),
       R::invalid_argument,
       "'weight' has dtype F16 and shape [2, 8]; an FP4 weight is U8 [rows, K/2]"},
      {"WeightNot2D", checkpoint({with(kWeight, "U8", {32}, Bytes(32, 0)), kScale, kScale2}),
       R::invalid_argument, "'weight' has dtype U8 and shape [32]"},
      {"KNotABlockMultiple",
       checkpoint({with(kWeight, "U8", {2, 4}, Bytes(8, 0)), kScale, kScale2}), R::invalid_argument,
       "'weight' holds K = 8 elements per row, not a multiple of 16 (the nvfp4 block size)"},
      {"ScaleShapeFitsNoLayout",
       checkpoint({kWeight, with(kScale, "F8_E4M3", {2, 3}, Bytes(6, 0)), kScale2}),
       R::invalid_argument,
       "'weight_scale' has shape [2, 3]; nvfp4 scales of a [2, 16] weight are [2, 2] (linear) or "
       "[128, 4] (swizzled)"},
      {"ScaleShapeNotTheStatedLayout",
       checkpoint({kWeight, with(kScale, "F8_E4M3", {128, 4}, Bytes(512, 0)), kScale2},
                  ours("nvfp4")),
       R::invalid_argument,
       "'weight_scale' has shape [128, 4]; linear nvfp4 scales of a [2, 16] weight are [2, 2]"},
      {"U8ScalesWithoutMetadata",
       checkpoint({kWeight, with(kScale, "U8", {2, 2}, Bytes(4, 0)), kScale2}), R::invalid_argument,
       "'weight_scale' is U8 and the file has no fp4gemm __metadata__"},
      {"ScaleDtypeOfNoFormat",
       checkpoint({kWeight, with(kScale, "F16", {2, 2}, Bytes(8, 0)), kScale2}),
       R::invalid_argument,
       "'weight_scale' has dtype F16; block scales are F8_E4M3 (NVFP4) or U8/F8_E8M0 (MXFP4)"},
      {"ScaleDtypeAgainstMetadata",
       checkpoint({kWeight, with(kScale, "U8", {2, 2}, Bytes(4, 0)), kScale2}, ours("nvfp4")),
       R::invalid_argument, "'weight_scale' has dtype U8; nvfp4 scales are F8_E4M3"},
      {"TensorScaleNotAScalar",
       checkpoint({kWeight, kScale, with(kScale2, "F32", {2}, Bytes(8, 0))}), R::invalid_argument,
       "'weight_scale_2' has dtype F32 and shape [2]; it must be F32 [] or [1]"},
      {"TensorScaleNotF32", checkpoint({kWeight, kScale, with(kScale2, "F16", {}, Bytes(2, 0))}),
       R::invalid_argument, "'weight_scale_2' has dtype F16 and shape []"},
      {"TensorScaleNaN",
       checkpoint({kWeight, kScale, with(kScale2, "F32", {}, raw_bytes(std::vector<float>{nan}))}),
       R::invalid_argument, "'weight_scale_2' = nan is not finite"},
      {"Mxfp4WithTensorScale",
       checkpoint({with(kWeight, "U8", {2, 16}, Bytes(32, 0)),
                   with(kScale, "U8", {2, 1}, Bytes(2, 127)), kScale2},
                  ours("mxfp4")),
       R::invalid_argument, "MXFP4 has no tensor scale, but the file has 'weight_scale_2'"},
      {"MetadataFormatUnknown", checkpoint({kWeight, kScale, kScale2}, ours("fp5")),
       R::invalid_argument, "--a: __metadata__ \"format\" = 'fp5': use nvfp4 or mxfp4"},
      {"MetadataWithoutLayout", checkpoint({kWeight, kScale, kScale2}, ours("nvfp4", "")),
       R::invalid_argument, "__metadata__ of a file written by fp4gemm lacks \"scale_layout\""},
  };
}

class SafetensorsRejects : public ::testing::TestWithParam<Rejection> {};

TEST_P(SafetensorsRejects, WithAnErrorNamingTheArgumentAndRule) {
  expect_rejected(GetParam(),
                  [](const Bytes& b, std::string_view a) { parse_fp4_safetensors(b, a); });
}

INSTANTIATE_TEST_SUITE_P(Safetensors, SafetensorsRejects, ::testing::ValuesIn(rejections()),
                         rejection_name);

// The valid pieces above do parse: the rejections are due to the one change each makes.
TEST(SafetensorsRejectsBaseline, TheUnchangedPiecesParse) {
  EXPECT_EQ(parse_fp4_safetensors(checkpoint({kWeight, kScale, kScale2}), "--a").cols, 32);
  EXPECT_EQ(
      parse_fp4_safetensors(checkpoint({kWeight, kScale, kScale2}, ours("nvfp4")), "--a").rows, 2);
}

}  // namespace
}  // namespace fp4gemm::testing_io
