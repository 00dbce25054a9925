#include "shape_list.hpp"

#include <charconv>

#include "fp4gemm/error.hpp"

namespace fp4gemm::cli {
namespace {

std::int64_t parse_positive(std::string_view text, std::string_view argument) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  require(ec == std::errc() && end == text.data() + text.size() && value > 0,
          "{} = '{}' is not a positive integer", argument, text);
  return value;
}

}  // namespace

std::vector<std::int64_t> parse_positive_list(const std::vector<std::string>& items,
                                              std::string_view argument) {
  std::vector<std::int64_t> values;
  for (const std::string& item : items) values.push_back(parse_positive(item, argument));
  return values;
}

std::vector<GemmShape> parse_shape_list(const std::vector<std::string>& items, std::string_view argument) {
  std::vector<GemmShape> shapes;
  for (const std::string& item : items) {
    const std::size_t x1 = item.find('x'), x2 = item.find('x', x1 == std::string::npos ? 0 : x1 + 1);
    require(x1 != std::string::npos && x2 != std::string::npos,
            "{} = '{}' is not of the form MxNxK (e.g. 1x768x6144)", argument, item);
    const std::string_view s(item);
    shapes.push_back({parse_positive(s.substr(0, x1), argument),
                      parse_positive(s.substr(x1 + 1, x2 - x1 - 1), argument),
                      parse_positive(s.substr(x2 + 1), argument)});
  }
  return shapes;
}

}  // namespace fp4gemm::cli
