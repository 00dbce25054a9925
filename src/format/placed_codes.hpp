#pragma once
// E2M1 codes packed for bit-placement dequantization on the GPU ("placed codes"), built once in a
// backend's prepare(), as a serving engine repacks its weights at load time.
//
// A bf16 with sign s at bit 15, e1 e0 at bits 8 7 and m at bit 6 (all else zero) is exactly
// E2M1(s e1 e0 m) x 2^-126 (the codes +-0.5 are bf16 subnormals, which the bf16 FMA keeps); the
// kernels then multiply by the block scale carrying the 2^126 (mma_primitives.cuh). A 4-byte word
// of placed codes holds the 8 codes c0..c7 of one row and 8 consecutive k, arranged so that a
// kernel gets the bf16 pairs (c0, c1), (c2, c3), (c4, c5), (c6, c7) (lower k in the low half)
// with rotations and masks only, 9 logic operations per word where E2M1 nibbles take ~16:
//   pairs 0..2: rotr(w, 2), rotr(w, 6), rotr(w, 12), each & kPlacedPairMask (three translates of
//               the field bits {6, 7, 8, 15} of both halves),
//   pair 3:     the 8 bits left: s, e0 and m in place (w & 0x80C080C0), e1 from rotr(w, 8).
// Four translates of the field bits never tile the word (they would tile Z_16, and {0, 1, 2, 9}
// does not), so one pair takes two sources; an exhaustive search (rotation sets with per-bit
// sources, and XORs of up to three shifted copies) found nothing under 9 operations (stop 14's
// placement took 11: rotations 0, 3, 6 and a pair 3 from three more).
// Each field's stored bit is (its bf16 bit + its rotation) mod 32: placed_stored_bit.
#include <cstdint>
#include <vector>

#include "fp4gemm/host_device.hpp"

namespace fp4gemm {

// Fields of an E2M1 code, by their bit in the nibble: m (bit 0), e0, e1, s (bit 3).
inline constexpr int kPlacedFields = 4;
// A field's bit in the bf16 of the low half (the high half's is 16 more).
FP4GEMM_HD constexpr int placed_bf16_bit(int field) { return field == 3 ? 15 : 6 + field; }
// The rotation (right) that brings `field` of the codes of `pair` to its bf16 bits.
FP4GEMM_HD constexpr int placed_rotation(int pair, int field) {
  return pair == 0 ? 2 : pair == 1 ? 6 : pair == 2 ? 12 : (field == 2 ? 8 : 0);
}
// The bit of a placed word that holds `field` of code j (0..7).
FP4GEMM_HD constexpr int placed_stored_bit(int code, int field) {
  return (placed_bf16_bit(field) + 16 * (code % 2) + placed_rotation(code / 2, field)) % 32;
}
// The field bits of a bf16 pair (s, e1, e0, m of both halves).
inline constexpr std::uint32_t kPlacedPairMask = 0x81C081C0u;

FP4GEMM_HD std::uint32_t placed_rotr(std::uint32_t w, int r) {
#if defined(__CUDA_ARCH__)
  return __funnelshift_r(w, w, r);
#else
  return r == 0 ? w : (w >> r) | (w << (32 - r));
#endif
}

// The four bf16 pairs of a placed word: out[q] = (c(2q), c(2q + 1)) as E2M1 x 2^-126, lower k in
// the low half (one function for the kernels and the host tests).
FP4GEMM_HD void placed_codes_to_bf16_bits(std::uint32_t w, std::uint32_t (&out)[4]) {
  for (int q = 0; q < 3; ++q) out[q] = placed_rotr(w, placed_rotation(q, 0)) & kPlacedPairMask;
  constexpr std::uint32_t kE1 = 0x01000100u;  // bits 8 and 24: e1 of both halves
  out[3] = (w & (kPlacedPairMask & ~kE1)) | (placed_rotr(w, placed_rotation(3, 2)) & kE1);
}

// `data` (E2M1 codes, two per byte, element 2i in the low nibble of byte i, a whole number of
// 4-byte words) as placed codes, word by word (a word: 8 consecutive codes). Throws
// InvalidArgument if the size is not a multiple of 4.
std::vector<std::uint8_t> placed_codes(const std::vector<std::uint8_t>& data);

}  // namespace fp4gemm
