// safetensors reading and writing (format and rules in safetensors_container.hpp).
#include "io/safetensors_container.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <tuple>

#include "fp4gemm/error.hpp"
#include "io/bytes.hpp"

namespace fp4gemm::io {
namespace {

using nlohmann::json;

constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;  // the reference reader's limit
// JSON containers open at most at depth 2 (nlohmann counts the root's parent as 0):
// root object (0) -> tensor entry or __metadata__ (1) -> shape or data_offsets (2).
constexpr int kMaxContainerDepth = 2;

// Bits per element of the safetensors dtypes (its Dtype enum, version 0.6).
std::optional<std::int64_t> dtype_bits(std::string_view dtype) {
  static const std::map<std::string_view, std::int64_t> bits = {
      {"BOOL", 8},    {"U8", 8},   {"I8", 8},   {"F8_E5M2", 8}, {"F8_E4M3", 8},
      {"F8_E8M0", 8}, {"I16", 16}, {"U16", 16}, {"F16", 16},    {"BF16", 16},
      {"I32", 32},    {"U32", 32}, {"F32", 32}, {"F64", 64},    {"I64", 64},
      {"U64", 64},    {"C64", 64}, {"F4", 4},   {"F6_E2M3", 6}, {"F6_E3M2", 6}};
  const auto it = bits.find(dtype);
  if (it == bits.end()) return std::nullopt;
  return it->second;
}

[[noreturn]] void invalid(std::string_view argument, std::string_view what) {
  throw IoError(fmt::format("{}: invalid safetensors file: {}", argument, what));
}

class HeaderReader {
 public:
  HeaderReader(std::string_view argument, std::uint64_t data_bytes)
      : argument_(argument), data_bytes_(data_bytes) {}

  // Parses the JSON text: no duplicate keys, no deeper nesting than a header has.
  json parse_json(std::string_view text) const {
    std::vector<std::set<std::string>> open_objects;  // keys seen so far, per open object
    const json::parser_callback_t check = [&](int depth, json::parse_event_t event, json& parsed) {
      if ((event == json::parse_event_t::object_start ||
           event == json::parse_event_t::array_start) &&
          depth > kMaxContainerDepth)
        fail(fmt::format("JSON nested deeper than a safetensors header ({} levels)",
                         kMaxContainerDepth + 1));
      if (event == json::parse_event_t::object_start) open_objects.emplace_back();
      if (event == json::parse_event_t::object_end) open_objects.pop_back();
      if (event == json::parse_event_t::key &&
          !open_objects.back().insert(parsed.get<std::string>()).second)
        fail(fmt::format("duplicate key \"{}\" in the header", parsed.get<std::string>()));
      return true;
    };
    try {
      return json::parse(text.begin(), text.end(), check);
    } catch (const json::exception& e) {
      fail(fmt::format("the header is not valid JSON: {}", e.what()));
    }
  }

  SafetensorsFile read(const json& header, std::span<const std::uint8_t> data) const {
    SafetensorsFile file;
    std::vector<std::tuple<std::uint64_t, std::uint64_t, std::string>> ranges;
    for (const auto& [name, entry] : header.items()) {
      if (name == "__metadata__") {
        file.metadata = metadata(entry);
        continue;
      }
      const auto [begin, end, tensor] = tensor_entry(name, entry);
      file.tensors.emplace(
          name, SafetensorsTensor{tensor.dtype, tensor.shape, data.subspan(begin, end - begin)});
      ranges.emplace_back(begin, end, name);
    }
    // The tensors must tile the data area: sorted by offset, each starts where the last ended.
    std::sort(ranges.begin(), ranges.end());
    std::uint64_t covered = 0;
    for (const auto& [begin, end, name] : ranges) {
      if (begin > covered)
        fail(fmt::format("data bytes [{}, {}) belong to no tensor (before \"{}\")", covered, begin,
                         name));
      if (begin < covered) fail(fmt::format("tensor \"{}\" overlaps the tensor before it", name));
      covered = end;
    }
    if (covered != data_bytes_)
      fail(fmt::format("the last {} bytes of the data area belong to no tensor",
                       data_bytes_ - covered));
    return file;
  }

 private:
  [[noreturn]] void fail(std::string_view what) const { invalid(argument_, what); }

  std::map<std::string, std::string> metadata(const json& entry) const {
    if (!entry.is_object()) fail("\"__metadata__\" is not an object");
    std::map<std::string, std::string> values;
    for (const auto& [key, value] : entry.items()) {
      if (!value.is_string())
        fail(fmt::format("\"__metadata__\" value \"{}\" is not a string", key));
      values.emplace(key, value.get<std::string>());
    }
    return values;
  }

  // A non-negative JSON integer that fits int64, or fail naming `what`.
  std::int64_t count(const json& value, std::string_view what) const {
    if (!value.is_number_unsigned() ||
        value.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
      fail(fmt::format("{} is not a non-negative 64-bit integer", what));
    return value.get<std::int64_t>();
  }

  // dtype, shape and the byte range checked against each other and the data area.
  std::tuple<std::uint64_t, std::uint64_t, SafetensorsTensor> tensor_entry(
      const std::string& name, const json& entry) const {
    if (!entry.is_object()) fail(fmt::format("entry \"{}\" is not an object", name));
    for (const auto& [key, value] : entry.items())
      if (key != "dtype" && key != "shape" && key != "data_offsets")
        fail(fmt::format("tensor \"{}\" has unknown field \"{}\"", name, key));
    const auto dtype = entry.find("dtype");
    const auto shape = entry.find("shape");
    const auto offsets = entry.find("data_offsets");
    if (dtype == entry.end() || shape == entry.end() || offsets == entry.end())
      fail(fmt::format("tensor \"{}\" lacks one of \"dtype\", \"shape\", \"data_offsets\"", name));
    if (!dtype->is_string()) fail(fmt::format("tensor \"{}\" dtype is not a string", name));
    SafetensorsTensor tensor{dtype->get<std::string>(), {}, {}};
    const std::optional<std::int64_t> bits = dtype_bits(tensor.dtype);
    if (!bits) fail(fmt::format("tensor \"{}\" has unknown dtype \"{}\"", name, tensor.dtype));
    if (!shape->is_array()) fail(fmt::format("tensor \"{}\" shape is not an array", name));
    for (const json& d : *shape)
      tensor.shape.push_back(count(d, fmt::format("a \"{}\" shape entry", name)));
    if (!offsets->is_array() || offsets->size() != 2)
      fail(fmt::format("tensor \"{}\" data_offsets is not [begin, end]", name));
    const auto begin = std::uint64_t(count((*offsets)[0], fmt::format("\"{}\" begin", name)));
    const auto end = std::uint64_t(count((*offsets)[1], fmt::format("\"{}\" end", name)));
    if (begin > end || end > data_bytes_)
      fail(fmt::format(
          "tensor \"{}\" data_offsets [{}, {}] are not a range inside the {}-byte data area", name,
          begin, end, data_bytes_));
    const std::optional<std::int64_t> elements = checked_product(tensor.shape);
    const std::optional<std::int64_t> total_bits =
        elements ? checked_mul(*elements, *bits) : std::nullopt;
    if (!total_bits || *total_bits % 8 != 0)
      fail(
          fmt::format("tensor \"{}\" of shape {} and dtype {} is not a whole number of bytes that "
                      "fits 64 bits",
                      name, shape_text(tensor.shape), tensor.dtype));
    if (std::uint64_t(*total_bits / 8) != end - begin)
      fail(fmt::format(
          "tensor \"{}\" of shape {} and dtype {} needs {} bytes; data_offsets [{}, {}] "
          "hold {}",
          name, shape_text(tensor.shape), tensor.dtype, *total_bits / 8, begin, end, end - begin));
    return {begin, end, std::move(tensor)};
  }

  std::string_view argument_;
  std::uint64_t data_bytes_;
};

}  // namespace

SafetensorsFile parse_safetensors(std::span<const std::uint8_t> bytes, std::string_view argument) {
  if (bytes.size() < 8)
    invalid(argument, fmt::format("{} bytes; the header length field alone needs 8", bytes.size()));
  const auto header_bytes = load_le<std::uint64_t>(bytes, 0);
  if (header_bytes > kMaxHeaderBytes || header_bytes > bytes.size() - 8)
    invalid(
        argument,
        fmt::format(
            "header length {} exceeds the {} bytes after the length field (or the 100 MB limit)",
            header_bytes, bytes.size() - 8));
  const std::span<const std::uint8_t> data = bytes.subspan(8 + header_bytes);
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()) + 8, header_bytes);
  if (!text.starts_with('{')) invalid(argument, "the header does not start with '{'");
  const HeaderReader reader(argument, data.size());
  return reader.read(reader.parse_json(text), data);
}

std::vector<std::uint8_t> serialize_safetensors(
    std::span<const std::pair<std::string, SafetensorsTensor>> tensors,
    const std::map<std::string, std::string>& metadata) {
  json header = json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::uint64_t offset = 0;
  for (const auto& [name, tensor] : tensors) {
    header[name] = {{"dtype", tensor.dtype},
                    {"shape", tensor.shape},
                    {"data_offsets", {offset, offset + tensor.data.size()}}};
    offset += tensor.data.size();
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // the data area starts 8-aligned
  std::vector<std::uint8_t> bytes;
  bytes.reserve(8 + text.size() + offset);
  const std::uint64_t length = text.size();
  append_le(bytes, std::span<const std::uint64_t>(&length, 1));
  bytes.insert(bytes.end(), text.begin(), text.end());
  for (const auto& [name, tensor] : tensors)
    bytes.insert(bytes.end(), tensor.data.begin(), tensor.data.end());
  return bytes;
}

std::string shape_text(std::span<const std::int64_t> shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

}  // namespace fp4gemm::io
