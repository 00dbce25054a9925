#pragma once
// The experiment switches: environment variables that force one of a kernel family's plan
// choices for a measurement (cuda-decode's FP4GEMM_DECODE_*, decode_choices_from_environment();
// cuda-wgmma's FP4GEMM_WGMMA_*, wgmma_choices_from_environment()). A value is one of a fixed list
// of names, or a count in a range; anything else is an InvalidArgument naming the variable, the
// value and what it takes. Unset or empty means the first choice (the planner's own).
#include <fmt/format.h>

#include <charconv>
#include <cstddef>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

#include "fp4gemm/error.hpp"

namespace fp4gemm::cuda {

// The value of `variable`, "" where it is unset.
inline std::string_view environment(const char* variable) {
  const char* value = std::getenv(variable);
  return value ? value : "";
}

// The choice named `value` of the environment variable `variable` ("" is the first choice).
template <class Choice, std::size_t kCount>
Choice parse_choice(std::string_view variable, std::string_view value,
                    const std::pair<std::string_view, Choice> (&choices)[kCount]) {
  if (value.empty()) return choices[0].second;
  std::string names;
  for (const auto& [name, choice] : choices) {
    if (value == name) return choice;
    names += names.empty() ? std::string(name) : fmt::format(", {}", name);
  }
  throw InvalidArgument(fmt::format("{} = '{}' is not one of: {}", variable, value, names));
}

// 0 for "" or "auto" (the planner decides), else a count in low..high; `what` names it in the
// error ("a count of K-slices").
inline int parse_count(std::string_view variable, std::string_view value, int low, int high,
                       std::string_view what) {
  if (value.empty() || value == "auto") return 0;
  int count = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), count);
  if (error != std::errc{} || end != value.data() + value.size() || count < low || count > high)
    throw InvalidArgument(
        fmt::format("{} = '{}' is not 'auto' or {} {}..{}", variable, value, what, low, high));
  return count;
}

}  // namespace fp4gemm::cuda
