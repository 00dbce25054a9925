#pragma once
// The safetensors container (github.com/huggingface/safetensors, README "Format"):
//
//   offset  size  content
//   0       8     N, u64 little-endian: the header's byte count
//   8       N     a JSON object, UTF-8, starting with '{', possibly padded with trailing spaces:
//                   "<name>": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}
//                   "__metadata__": {"<key>": "<string value>", ...}        (optional)
//   8 + N   ...   the data area; [begin, end) are relative to its start, tensors little-endian
//                 and row-major
//
// Reading enforces the reference reader's rules, plus the README's "duplicate keys are
// disallowed": N <= 100 MB (its limit) and within the file; the JSON parses, nests no deeper
// than a header needs, repeats no key, and each tensor entry has exactly those three fields with
// those types; dtype is a safetensors dtype and end - begin = product(shape) * its size
// (overflow-checked); the tensors, ordered by offset, tile the data area exactly: no gap, no
// overlap, nothing after the last. Violations throw IoError "<argument>: ...".
//
// Writing lays tensors out contiguously in the order given and pads the header with spaces to a
// multiple of 8, so the data area starts 8-aligned, as the reference writer does.
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fp4gemm::io {

struct SafetensorsTensor {
  std::string dtype;                   // "U8", "F8_E4M3", "F32", ...
  std::vector<std::int64_t> shape;     // [] for a scalar
  std::span<const std::uint8_t> data;  // a view of the parsed (or to be written) bytes
};

struct SafetensorsFile {
  std::map<std::string, SafetensorsTensor> tensors;
  std::map<std::string, std::string> metadata;  // __metadata__, empty when absent
};

// The tensors' data views point into `bytes`.
SafetensorsFile parse_safetensors(std::span<const std::uint8_t> bytes, std::string_view argument);

std::vector<std::uint8_t> serialize_safetensors(
    std::span<const std::pair<std::string, SafetensorsTensor>> tensors,
    const std::map<std::string, std::string>& metadata);

// "[2, 3]": a shape as safetensors headers write it.
std::string shape_text(std::span<const std::int64_t> shape);

}  // namespace fp4gemm::io
