#pragma once
// Typed access to the fields of a JSON object, with errors that name the source, the field and
// the rule: "<source>: field 'hidden_size' is missing (needed for llama)",
// "<source>: field 'hidden_size' must be a positive integer, got "6144" (string)".
// Absent and null count as missing (HF writes null for unset optional fields). Integers are
// capped at 2^31 - 1.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace fp4gemm::model_detail {

// The parsed JSON object of `text`; IoError "<source>: not valid JSON (...)" if it does not
// parse, InvalidArgument if it is not an object.
nlohmann::json parse_json_object(std::string_view text, std::string_view source);

class JsonFields {
 public:
  // `purpose` ends the missing-field message: "needed for glm_moe_dsa".
  JsonFields(const nlohmann::json& object, std::string source, std::string purpose);

  bool has(std::string_view field) const;  // present and not null
  std::int64_t positive(std::string_view field) const;      // required integer >= 1
  std::int64_t non_negative(std::string_view field) const;  // required integer >= 0
  std::optional<std::int64_t> optional_positive(std::string_view field) const;
  std::optional<std::int64_t> optional_non_negative(std::string_view field) const;
  std::string string(std::string_view field) const;  // required string
  // Optional arrays; empty when absent.
  std::vector<std::string> optional_strings(std::string_view field) const;
  std::vector<std::int64_t> optional_non_negative_list(std::string_view field) const;
  // The object in `field` (required to be an object when present).
  std::optional<JsonFields> optional_object(std::string_view field) const;

  [[noreturn]] void fail(std::string_view field, std::string_view rule) const;
  const std::string& source() const { return source_; }

 private:
  const nlohmann::json& at(std::string_view field) const;  // InvalidArgument when missing
  std::int64_t integer(std::string_view field, const nlohmann::json& v, std::int64_t min,
                       std::string_view rule) const;

  const nlohmann::json* object_;
  std::string source_;
  std::string purpose_;
};

}  // namespace fp4gemm::model_detail
