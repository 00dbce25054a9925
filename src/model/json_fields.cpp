#include "model/json_fields.hpp"

#include <fmt/format.h>

#include "fp4gemm/error.hpp"

namespace fp4gemm::model_detail {
namespace {

// "6144 (number)", ""6144" (string)", for the "got ..." part of a message. Long values (an
// array of 78 layer types) are cut.
std::string describe(const nlohmann::json& v) {
  std::string text = v.dump();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return fmt::format("{} ({})", text, v.type_name());
}

}  // namespace

nlohmann::json parse_json_object(std::string_view text, std::string_view source) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw IoError(fmt::format("{}: not valid JSON ({})", source, e.what()));
  }
  require(j.is_object(), "{}: expected a JSON object at the top level, got {}", source, j.type_name());
  return j;
}

JsonFields::JsonFields(const nlohmann::json& object, std::string source, std::string purpose)
    : object_(&object), source_(std::move(source)), purpose_(std::move(purpose)) {}

bool JsonFields::has(std::string_view field) const {
  const auto it = object_->find(field);
  return it != object_->end() && !it->is_null();
}

void JsonFields::fail(std::string_view field, std::string_view rule) const {
  throw InvalidArgument(fmt::format("{}: field '{}' {}", source_, field, rule));
}

const nlohmann::json& JsonFields::at(std::string_view field) const {
  if (!has(field)) fail(field, fmt::format("is missing (needed for {})", purpose_));
  return *object_->find(field);
}

std::int64_t JsonFields::integer(std::string_view field, const nlohmann::json& v, std::int64_t min,
                                 std::string_view rule) const {
  // JSON has one number type; an integer is written without fraction or exponent, which
  // nlohmann reports as number_integer / number_unsigned.
  if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > INT64_MAX))
    fail(field, fmt::format("must be {}, got {}", rule, describe(v)));
  const std::int64_t value = v.get<std::int64_t>();
  if (value < min) fail(field, fmt::format("must be {}, got {}", rule, value));
  // Model sizes are far below 2^31; the cap keeps products of two of them inside int64.
  if (value > INT32_MAX) fail(field, fmt::format("= {} is too large (at most {})", value, INT32_MAX));
  return value;
}

std::int64_t JsonFields::positive(std::string_view field) const {
  return integer(field, at(field), 1, "a positive integer");
}

std::int64_t JsonFields::non_negative(std::string_view field) const {
  return integer(field, at(field), 0, "a non-negative integer");
}

std::optional<std::int64_t> JsonFields::optional_positive(std::string_view field) const {
  if (!has(field)) return std::nullopt;
  return positive(field);
}

std::optional<std::int64_t> JsonFields::optional_non_negative(std::string_view field) const {
  if (!has(field)) return std::nullopt;
  return non_negative(field);
}

std::string JsonFields::string(std::string_view field) const {
  const nlohmann::json& v = at(field);
  if (!v.is_string()) fail(field, fmt::format("must be a string, got {}", describe(v)));
  return v.get<std::string>();
}

std::vector<std::string> JsonFields::optional_strings(std::string_view field) const {
  std::vector<std::string> out;
  if (!has(field)) return out;
  const nlohmann::json& v = at(field);
  if (!v.is_array()) fail(field, fmt::format("must be an array of strings, got {}", describe(v)));
  for (const nlohmann::json& item : v) {
    if (!item.is_string())
      fail(field, fmt::format("must be an array of strings, but item {} is {}", out.size(), describe(item)));
    out.push_back(item.get<std::string>());
  }
  return out;
}

std::vector<std::int64_t> JsonFields::optional_non_negative_list(std::string_view field) const {
  std::vector<std::int64_t> out;
  if (!has(field)) return out;
  const nlohmann::json& v = at(field);
  if (!v.is_array()) fail(field, fmt::format("must be an array of non-negative integers, got {}", describe(v)));
  for (const nlohmann::json& item : v)
    out.push_back(integer(field, item, 0, "an array of non-negative integers"));
  return out;
}

std::optional<JsonFields> JsonFields::optional_object(std::string_view field) const {
  if (!has(field)) return std::nullopt;
  const nlohmann::json& v = at(field);
  if (!v.is_object()) fail(field, fmt::format("must be an object, got {}", describe(v)));
  return JsonFields(v, fmt::format("{}: {}", source_, field), purpose_);
}

}  // namespace fp4gemm::model_detail
