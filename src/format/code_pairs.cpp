#include "format/code_pairs.hpp"

#include "fp4gemm/error.hpp"

namespace fp4gemm {

std::vector<std::uint8_t> pair_ordered_codes(const std::vector<std::uint8_t>& data) {
  require(data.size() % 4 == 0, "pair_ordered_codes: {} bytes of codes are not whole 4-byte words",
          data.size());
  std::vector<std::uint8_t> packed(data.size(), 0);
  for (std::size_t word = 0; word < data.size(); word += 4)
    for (int j = 0; j < 8; ++j) {
      const int source = kPairOrderSource[j];
      const std::uint8_t code = (data[word + source / 2] >> (4 * (source % 2))) & 0xF;
      packed[word + j / 2] |= std::uint8_t(code << (4 * (j % 2)));
    }
  return packed;
}

}  // namespace fp4gemm
