// Fp4Tensor <-> safetensors with ModelOpt's tensor names (layout and inference rules in io.hpp).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "fp4gemm/error.hpp"
#include "fp4gemm/io.hpp"
#include "fp4gemm/layout.hpp"
#include "io/bytes.hpp"
#include "io/safetensors_container.hpp"
#include "io/source_name.hpp"

namespace fp4gemm {
namespace {

constexpr std::string_view kProducer = "fp4gemm";
// A missing-tensor error lists at most this many of the file's names, to hint at the prefix.
constexpr std::size_t kListedNames = 8;

std::vector<std::int64_t> scale_shape(ScaleLayout layout, std::int64_t rows,
                                      std::int64_t scale_cols) {
  if (layout == ScaleLayout::linear) return {rows, scale_cols};
  return {round_up(rows, 128), round_up(scale_cols, 4)};
}

// The names of one FP4 tensor in a file.
struct TensorNames {
  std::string weight, scale, scale_2;
  explicit TensorNames(std::string_view prefix)
      : weight(fmt::format("{}weight", prefix)),
        scale(fmt::format("{}weight_scale", prefix)),
        scale_2(fmt::format("{}weight_scale_2", prefix)) {}
};

class Fp4Reader {
 public:
  Fp4Reader(const io::SafetensorsFile& file, std::string_view argument, std::string_view prefix)
      : file_(file), argument_(argument), names_(prefix) {}

  Fp4Tensor read() const {
    const io::SafetensorsTensor* weight = find(names_.weight);
    const io::SafetensorsTensor* scale = find(names_.scale);
    const io::SafetensorsTensor* scale_2 = find(names_.scale_2);
    const auto producer = file_.metadata.find("producer");
    const bool ours = producer != file_.metadata.end() && producer->second == kProducer;
    // Without weight_scale the format is unknown; NVFP4, ModelOpt's, then decides whether a
    // missing weight_scale_2 is listed too.
    const Fp4Format format = ours
                                 ? parse_fp4_format(metadata("format"), metadata_argument("format"))
                             : scale ? infer_format(*scale)
                                     : Fp4Format::nvfp4;
    require_present(weight != nullptr, scale != nullptr,
                    scale_2 != nullptr || format == Fp4Format::mxfp4);
    require(format == Fp4Format::nvfp4 || scale_2 == nullptr,
            "{}: MXFP4 has no tensor scale, but the file has '{}'", argument_, names_.scale_2);

    // rows >= 1 bounds shape[1] by the file size, so 2 * shape[1] cannot overflow.
    const std::vector<std::int64_t>& shape = weight->shape;
    require(weight->dtype == "U8" && shape.size() == 2 && shape[0] >= 1 && shape[1] >= 1,
            "{}: '{}' has dtype {} and shape {}; an FP4 weight is U8 [rows, K/2]", argument_,
            names_.weight, weight->dtype, io::shape_text(shape));
    Fp4Tensor t;
    t.format = format;
    t.rows = shape[0];
    t.cols = 2 * shape[1];
    const int block = block_size(t.format);
    require(t.cols % block == 0,
            "{}: '{}' holds K = {} elements per row, not a multiple of {} (the {} block size)",
            argument_, names_.weight, t.cols, block, to_string(t.format));
    check_scale_dtype(*scale, t.format);
    t.scale_layout =
        ours ? parse_scale_layout(metadata("scale_layout"), metadata_argument("scale_layout"))
             : infer_layout(*scale, t);
    const std::vector<std::int64_t> want = scale_shape(t.scale_layout, t.rows, t.scale_cols());
    require(scale->shape == want, "{}: '{}' has shape {}; {} {} scales of a [{}, {}] weight are {}",
            argument_, names_.scale, io::shape_text(scale->shape), to_string(t.scale_layout),
            to_string(t.format), t.rows, t.cols / 2, io::shape_text(want));
    t.data.assign(weight->data.begin(), weight->data.end());
    t.scales.assign(scale->data.begin(), scale->data.end());
    t.scale_2 = t.format == Fp4Format::nvfp4 ? read_scale_2(*scale_2) : 1.0f;
    try {
      t.validate();
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(fmt::format("{}: {}", argument_, e.what()));
    }
    return t;
  }

 private:
  const io::SafetensorsTensor* find(const std::string& name) const {
    const auto it = file_.tensors.find(name);
    return it == file_.tensors.end() ? nullptr : &it->second;
  }

  std::string metadata_argument(std::string_view key) const {
    return fmt::format("{}: __metadata__ \"{}\"", argument_, key);
  }

  const std::string& metadata(const std::string& key) const {
    const auto it = file_.metadata.find(key);
    require(it != file_.metadata.end(), "{}: __metadata__ of a file written by {} lacks \"{}\"",
            argument_, kProducer, key);
    return it->second;
  }

  // Names the tensors that are missing, and some the file has (the prefix may be wrong).
  void require_present(bool weight, bool scale, bool scale_2) const {
    std::vector<std::string_view> missing;
    if (!weight) missing.push_back(names_.weight);
    if (!scale) missing.push_back(names_.scale);
    if (!scale_2) missing.push_back(names_.scale_2);
    if (missing.empty()) return;
    std::string listing;
    std::size_t listed = 0;
    for (const auto& [name, tensor] : file_.tensors) {
      if (listed++ == kListedNames) {
        listing += ", ...";
        break;
      }
      listing += fmt::format("{}'{}'", listing.empty() ? ": " : ", ", name);
    }
    throw InvalidArgument(fmt::format("{}: missing tensor(s) '{}'; the file has {} tensor(s){}",
                                      argument_, fmt::join(missing, "', '"), file_.tensors.size(),
                                      listing));
  }

  // Without fp4gemm metadata: the scale dtype tells the format, where it can.
  Fp4Format infer_format(const io::SafetensorsTensor& scale) const {
    if (scale.dtype == "F8_E4M3") return Fp4Format::nvfp4;
    if (scale.dtype == "F8_E8M0") return Fp4Format::mxfp4;
    require(scale.dtype != "U8",
            "{}: '{}' is U8 and the file has no {} __metadata__, so NVFP4 and MXFP4 scales cannot "
            "be told apart (NVFP4 checkpoints store F8_E4M3)",
            argument_, names_.scale, kProducer);
    throw InvalidArgument(
        fmt::format("{}: '{}' has dtype {}; block scales are F8_E4M3 (NVFP4) or U8/F8_E8M0 (MXFP4)",
                    argument_, names_.scale, scale.dtype));
  }

  void check_scale_dtype(const io::SafetensorsTensor& scale, Fp4Format format) const {
    const bool ok = format == Fp4Format::nvfp4 ? scale.dtype == "F8_E4M3"
                                               : scale.dtype == "U8" || scale.dtype == "F8_E8M0";
    require(ok, "{}: '{}' has dtype {}; {} scales are {}", argument_, names_.scale, scale.dtype,
            to_string(format),
            format == Fp4Format::nvfp4 ? "F8_E4M3" : "U8 (E8M0 bytes) or F8_E8M0");
  }

  // Without fp4gemm metadata: linear if the shape fits it (ModelOpt stores linear), else swizzled.
  ScaleLayout infer_layout(const io::SafetensorsTensor& scale, const Fp4Tensor& t) const {
    const std::vector<std::int64_t> linear =
        scale_shape(ScaleLayout::linear, t.rows, t.scale_cols());
    const std::vector<std::int64_t> swizzled =
        scale_shape(ScaleLayout::swizzled, t.rows, t.scale_cols());
    if (scale.shape == linear) return ScaleLayout::linear;
    require(
        scale.shape == swizzled,
        "{}: '{}' has shape {}; {} scales of a [{}, {}] weight are {} (linear) or {} (swizzled)",
        argument_, names_.scale, io::shape_text(scale.shape), to_string(t.format), t.rows,
        t.cols / 2, io::shape_text(linear), io::shape_text(swizzled));
    return ScaleLayout::swizzled;
  }

  float read_scale_2(const io::SafetensorsTensor& scale_2) const {
    const bool scalar = scale_2.shape.empty() || scale_2.shape == std::vector<std::int64_t>{1};
    require(scale_2.dtype == "F32" && scalar,
            "{}: '{}' has dtype {} and shape {}; it must be F32 [] or [1]", argument_,
            names_.scale_2, scale_2.dtype, io::shape_text(scale_2.shape));
    const float value = io::load_le<float>(scale_2.data, 0);
    require(std::isfinite(value), "{}: '{}' = {} is not finite", argument_, names_.scale_2, value);
    return value;
  }

  const io::SafetensorsFile& file_;
  std::string_view argument_;
  TensorNames names_;
};

}  // namespace

std::vector<std::uint8_t> serialize_fp4_safetensors(const Fp4Tensor& t) {
  t.validate();
  const auto scale_2 = std::span(reinterpret_cast<const std::uint8_t*>(&t.scale_2), sizeof(float));
  // Data order weight, weight_scale_2, weight_scale keeps the F32 scalar 8-aligned (io.hpp).
  std::vector<std::pair<std::string, io::SafetensorsTensor>> tensors;
  tensors.push_back({"weight", {"U8", {t.rows, t.cols / 2}, t.data}});
  if (t.format == Fp4Format::nvfp4) tensors.push_back({"weight_scale_2", {"F32", {}, scale_2}});
  tensors.push_back({"weight_scale",
                     {t.format == Fp4Format::nvfp4 ? "F8_E4M3" : "U8",
                      scale_shape(t.scale_layout, t.rows, t.scale_cols()), t.scales}});
  return io::serialize_safetensors(tensors,
                                   {{"format", std::string(to_string(t.format))},
                                    {"scale_layout", std::string(to_string(t.scale_layout))},
                                    {"producer", std::string(kProducer)}});
}

void write_fp4_safetensors(const std::filesystem::path& path, const Fp4Tensor& t, bool overwrite,
                           std::string_view argument) {
  write_file_atomically(path, serialize_fp4_safetensors(t), overwrite, argument);
}

Fp4Tensor parse_fp4_safetensors(std::span<const std::uint8_t> bytes, std::string_view argument,
                                std::string_view prefix) {
  const io::SafetensorsFile file = io::parse_safetensors(bytes, argument);
  return Fp4Reader(file, argument, prefix).read();
}

Fp4Tensor read_fp4_safetensors(const std::filesystem::path& path, std::string_view argument,
                               std::string_view prefix) {
  return parse_fp4_safetensors(read_file_bytes(path, argument), io::source_name(argument, path),
                               prefix);
}

}  // namespace fp4gemm
