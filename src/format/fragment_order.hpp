#pragma once
// E2M1 codes re-ordered within each group of 32 consecutive k of a row for a kernel that builds
// the register A fragments of mma / wgmma bf16 k16 steps from them (built once, in a backend's
// prepare(), like placed codes; cuda-wgmma).
//
// An A fragment gives lane 4g + t of a warp the k = 2t, 2t + 1, 2t + 8, 2t + 9 of each k16 step
// (rows g and g + 8; notes_wgmma.md, fact 1). In a group of 32 codes (two k16 steps), word t
// (bytes 4t .. 4t + 3) holds exactly lane t's 8 codes of the row, in the order
//   code j of word t = k 16 (j / 4) + 8 ((j / 2) % 2) + 2t + j % 2  (group-local k),
// i.e. (step 0: 2t, 2t+1, 2t+8, 2t+9), (step 1: the same + 16), so that one 4-byte load per row
// and group, then placed_codes_to_bf16_bits on it, yields the lane's four bf16 pairs of the two
// steps in fragment order (a0 or a1 of step 0, a2 or a3 of step 0, then of step 1). Groups never
// straddle 32 k, so K a multiple of 32 is all it needs (a last K-tile of 64 may be half full).
#include <cstdint>
#include <vector>

#include "fp4gemm/host_device.hpp"

namespace fp4gemm {

// Codes per group: two k16 steps.
inline constexpr int kFragmentGroupCodes = 32;

// The group-local k of code `code` (0..7) of word `word` (0..3).
FP4GEMM_HD constexpr int fragment_order_k(int word, int code) {
  return 16 * (code / 4) + 8 * ((code / 2) % 2) + 2 * word + code % 2;
}

// `data` (rows of `cols` E2M1 codes, two per byte, element 2i in the low nibble of byte i) with
// every row's groups of 32 codes in fragment order. Throws InvalidArgument if cols is not a
// positive multiple of 32 or the size is not a whole number of rows.
std::vector<std::uint8_t> fragment_ordered_codes(const std::vector<std::uint8_t>& data,
                                                 std::int64_t cols);

}  // namespace fp4gemm
