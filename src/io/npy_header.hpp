#pragma once
// The header dictionary of a .npy file, a Python literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// read by a strict parser of exactly this grammar (NumPy's own reader evaluates the literal and
// then demands these three keys with these types, so nothing it accepts is lost):
//   dict          := '{' [entry (',' entry)* [',']] '}'
//   entry         := string ':' value     keys 'descr', 'fortran_order', 'shape', each once
//   descr         := string               e.g. '<f4' (structured dtypes, lists, are refused)
//   fortran_order := 'True' | 'False'
//   shape         := '(' ')' | '(' int ',' ')' | '(' int (',' int)+ [','] ')'
//   int           := '0' | [1-9][0-9]* ['L']   (L: Python 2 writers), at most INT64_MAX
//   string        := '...' | "..."  without backslashes or line breaks
// Python whitespace may separate tokens and follow the dict (the writer's padding).
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fp4gemm::io {

struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<std::int64_t> shape;
};

// IoError "<argument>: the .npy header is not ..." naming the rule broken and where.
NpyHeader parse_npy_header(std::string_view text, std::string_view argument);

// The shape as Python writes a tuple: "(2, 3)", "(6,)", "()".
std::string npy_shape_text(std::span<const std::int64_t> shape);

// The dictionary as NumPy writes it (keys sorted, a comma after each entry), unpadded.
std::string npy_header_dict(const NpyHeader& header);

}  // namespace fp4gemm::io
