#pragma once
// Parsing of the comma-separated lists the verbs take: "1,16,256", "1x768x6144,2x2048x6144".
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fp4gemm/gemm.hpp"

namespace fp4gemm::cli {

// Positive integers; InvalidArgument naming `argument` and the bad item.
std::vector<std::int64_t> parse_positive_list(const std::vector<std::string>& items,
                                              std::string_view argument);
// "MxNxK" triples of positive integers.
std::vector<GemmShape> parse_shape_list(const std::vector<std::string>& items, std::string_view argument);

}  // namespace fp4gemm::cli
