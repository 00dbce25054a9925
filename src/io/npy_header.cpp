// Strict recursive-descent parser of the .npy header dictionary (grammar in npy_header.hpp).
#include "io/npy_header.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <limits>

#include "fp4gemm/error.hpp"

namespace fp4gemm::io {
namespace {

// At most this many header characters are quoted in an error message.
constexpr std::size_t kQuotedHeaderChars = 120;

// `text` with bytes outside printable ASCII written as \xNN, cut at kQuotedHeaderChars.
std::string quoted(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < kQuotedHeaderChars; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7F)
      out += char(c);
    else
      out += fmt::format("\\x{:02x}", c);
  }
  if (text.size() > kQuotedHeaderChars) out += "...";
  return out;
}

class HeaderParser {
 public:
  HeaderParser(std::string_view text, std::string_view argument)
      : text_(text), argument_(argument) {}

  NpyHeader parse() {
    skip_space();
    expect('{', "the header must start with '{'");
    skip_space();
    while (peek() != '}') {
      entry();
      skip_space();
      if (peek() == ',') {
        ++pos_;
        skip_space();
      } else if (peek() != '}') {
        fail("expected ',' or '}' after an entry");
      }
    }
    ++pos_;
    skip_space();
    if (pos_ != text_.size()) fail("only whitespace may follow the dict");
    std::vector<std::string_view> missing;
    if (!seen_descr_) missing.push_back("'descr'");
    if (!seen_fortran_order_) missing.push_back("'fortran_order'");
    if (!seen_shape_) missing.push_back("'shape'");
    if (!missing.empty()) fail(fmt::format("missing key {}", fmt::join(missing, ", ")));
    return header_;
  }

 private:
  // The next byte, or -1 at the end of the text.
  int peek() const { return pos_ < text_.size() ? static_cast<unsigned char>(text_[pos_]) : -1; }

  [[noreturn]] void fail(std::string_view what) const {
    throw IoError(fmt::format(
        "{}: the .npy header is not a dict literal of 'descr', 'fortran_order' and 'shape': {} "
        "(at header byte {}; header: \"{}\")",
        argument_, what, pos_, quoted(text_)));
  }

  void expect(char c, std::string_view what) {
    if (peek() != static_cast<unsigned char>(c)) fail(what);
    ++pos_;
  }

  void skip_space() {
    while (pos_ < text_.size() &&
           std::string_view(" \t\n\r\f\v").find(text_[pos_]) != std::string_view::npos)
      ++pos_;
  }

  // Records that `key` was seen; a second time is an error (Python would keep the last).
  void mark(bool& seen, std::string_view key) {
    if (seen) fail(fmt::format("duplicate key '{}'", key));
    seen = true;
  }

  void entry() {
    const std::string key = string_literal("a quoted key");
    skip_space();
    expect(':', "expected ':' after a key");
    skip_space();
    if (key == "descr") {
      mark(seen_descr_, key);
      if (peek() == '[')
        throw InvalidArgument(fmt::format(
            "{}: the array has a structured dtype; save a plain 2-D float array", argument_));
      header_.descr = string_literal("'descr' to be a quoted dtype such as '<f4'");
    } else if (key == "fortran_order") {
      mark(seen_fortran_order_, key);
      header_.fortran_order = boolean();
    } else if (key == "shape") {
      mark(seen_shape_, key);
      header_.shape = shape();
    } else {
      fail(fmt::format("unknown key '{}'", quoted(key)));
    }
  }

  std::string string_literal(std::string_view expected) {
    const int quote = peek();
    if (quote != '\'' && quote != '"') fail(fmt::format("expected {}", expected));
    const std::size_t start = ++pos_;
    while (peek() != quote) {
      if (peek() == -1 || peek() == '\\' || peek() == '\n' || peek() == '\r')
        fail("unterminated string, or one with a backslash or line break");
      ++pos_;
    }
    ++pos_;
    return std::string(text_.substr(start, pos_ - 1 - start));
  }

  bool boolean() {
    if (text_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    fail("'fortran_order' must be True or False");
  }

  std::vector<std::int64_t> shape() {
    expect('(', "'shape' must be a tuple such as (2, 3)");
    skip_space();
    std::vector<std::int64_t> dims;
    bool trailing_comma = false;
    while (peek() != ')') {
      dims.push_back(integer());
      skip_space();
      trailing_comma = peek() == ',';
      if (trailing_comma) {
        ++pos_;
        skip_space();
      } else if (peek() != ')') {
        fail("expected ',' or ')' in 'shape'");
      }
    }
    ++pos_;
    if (dims.size() == 1 && !trailing_comma)
      fail("'shape' (n) is a parenthesized int, not a tuple: a 1-D shape is written (n,)");
    return dims;
  }

  std::int64_t integer() {
    const auto digit = [&] { return peek() >= '0' && peek() <= '9'; };
    if (!digit()) fail("'shape' entries must be non-negative integers");
    if (peek() == '0' && pos_ + 1 < text_.size() && text_[pos_ + 1] >= '0' &&
        text_[pos_ + 1] <= '9')
      fail("an integer with a leading zero");
    std::int64_t value = 0;
    constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
    while (digit()) {
      const int d = peek() - '0';
      if (value > (kMax - d) / 10) fail("a 'shape' entry does not fit 64 bits");
      value = value * 10 + d;
      ++pos_;
    }
    if (peek() == 'L') ++pos_;
    return value;
  }

  std::string_view text_;
  std::string_view argument_;
  std::size_t pos_ = 0;
  NpyHeader header_;
  bool seen_descr_ = false;
  bool seen_fortran_order_ = false;
  bool seen_shape_ = false;
};

}  // namespace

NpyHeader parse_npy_header(std::string_view text, std::string_view argument) {
  return HeaderParser(text, argument).parse();
}

std::string npy_shape_text(std::span<const std::int64_t> shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ", "));
}

std::string npy_header_dict(const NpyHeader& header) {
  return fmt::format("{{'descr': '{}', 'fortran_order': {}, 'shape': {}, }}", header.descr,
                     header.fortran_order ? "True" : "False", npy_shape_text(header.shape));
}

}  // namespace fp4gemm::io
