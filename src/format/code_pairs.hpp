#pragma once
// E2M1 codes re-ordered inside each 4-byte word for the bit-placement dequantization of the GPU
// kernels (mma_primitives.cuh, e2m1x8_to_bf16_bits), so that it yields bf16 pairs in k order.
//
// Bit placement turns the eight codes c'0..c'7 of a word (c'j in bits 4j..4j+3) into the bf16
// pairs (c'3, c'7), (c'2, c'6), (c'1, c'5), (c'0, c'4) with ~2 logic operations per code, but in
// that order. A kernel whose other operand it cannot permute the same way (a TMA tile of
// activations read by wgmma in k order) re-packs the weights once, in prepare(): nibble j of the
// packed word holds code kPairOrderSource[j] of the original word, so the pairs come out as
// (c0, c1), (c2, c3), (c4, c5), (c6, c7).
#include <cstdint>
#include <vector>

namespace fp4gemm {

inline constexpr int kPairOrderSource[8] = {6, 4, 2, 0, 7, 5, 3, 1};

// `data` (packed E2M1 codes, two per byte, a whole number of 4-byte words) with every word's
// nibbles re-ordered as above. Throws InvalidArgument if the size is not a multiple of 4.
std::vector<std::uint8_t> pair_ordered_codes(const std::vector<std::uint8_t>& data);

}  // namespace fp4gemm
