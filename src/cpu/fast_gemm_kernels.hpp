#pragma once
// The per-ISA kernels of cpu-fast, as a table of function pointers called by the ISA-independent
// driver (fast_gemm_driver.cpp). Each table is built by one ISA file from the templates of
// fast_gemm_generic.hpp.
//
// Chunk order. Every kernel walks K in chunks of 2 * lanes elements (16 for scalar and AVX2,
// 32 for AVX-512), i.e. `lanes` bytes of E2M1 codes. Decoding a chunk widens byte j into lane j
// and yields two vectors: `even` (lane j = element 2j, the low nibble) and `odd` (lane j =
// element 2j + 1, the high nibble). Weights decoded to fp32 and packed activations are both
// stored in this order (a chunk's even elements, then its odd ones), so that products pair up:
// a dot product does not depend on the order of its terms, and no nibble shuffle is needed.
#include <cstdint>

#include "cpu/fast_gemm.hpp"

namespace fp4gemm::cpu {

// E2M1 values by code: magnitudes by the low 3 bits, negated when bit 3 is set (codecs.hpp).
inline constexpr float kE2m1Values[16] = {0.0f,  0.5f,  1.0f,  1.5f,  2.0f,  3.0f,  4.0f,  6.0f,
                                          -0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f};

// K is padded to this multiple (zero codes, zero scale codes) so that every ISA's chunk divides
// it: 32 = AVX-512's chunk, a multiple of both block sizes (16, 32) and of the other chunks.
inline constexpr std::int64_t kKPad = 32;
// Weight rows are padded to this multiple (zero rows): every ISA's weight rows per micro-tile
// and per streaming step divide it.
inline constexpr std::int64_t kRowPad = 4;
// Weight rows the blocked kernel decodes at a time (KernelTable::block_product).
inline constexpr std::int64_t kTileGroup = 16;

// Weights as cpu-fast prepares them (fast_gemm_pack.hpp): `rows` (a multiple of kRowPad) rows of
// k_padded (a multiple of kKPad) elements, codes two per byte, scales in the linear layout.
struct WeightView {
  const std::uint8_t* codes = nullptr;   // rows x k_padded/2
  const std::uint8_t* scales = nullptr;  // rows x k_padded/block
  const float* scale_lut = nullptr;      // 256 floats: the value of each scale code
  std::int64_t rows = 0;
  std::int64_t k_padded = 0;
  int block = 16;                        // 16 (NVFP4, E4M3 scales) or 32 (MXFP4, UE8M0 scales)
};

struct KernelTable {
  int lanes = 0;         // fp32 lanes of a vector; the chunk is 2 * lanes elements
  int tile_m = 0;        // activation rows of the blocked kernel's micro-tile (A is padded to it)
  int stream_rows = 0;   // activation rows the streaming kernel takes in one pass (at most)
  int stream_max_m = 0;  // the largest M that takes the streaming kernel (measured crossover)

  // panel[r][kk] = B_hat[row0 + r][k0 + kk] in chunk order, for r < rows, kk < kc.
  // k0 and kc are multiples of kKPad; panel holds rows x kc floats (row stride kc).
  void (*decode_panel)(const WeightView& w, std::int64_t row0, std::int64_t rows, std::int64_t k0,
                       std::int64_t kc, float* panel) = nullptr;

  // One K block of the blocked product: for weight rows [n0, n0 + rows) (rows a multiple of
  // kRowPad) and the activation block a (a_rows x kc, row stride lda, a_rows a multiple of
  // tile_m; k0, kc multiples of kKPad):
  //   c[m][n - n0] (+)= sum_kk a[m][kk] * B_hat[n][k0 + kk]  for m < m_valid, n - n0 < n_valid;
  // `accumulate` false stores the sums, true adds them to c (row stride ldc). tile: scratch of
  // kTileGroup x kc floats for the decoded weights.
  void (*block_product)(const float* a, std::int64_t lda, std::int64_t a_rows,
                        const WeightView& w, std::int64_t n0, std::int64_t rows, std::int64_t k0,
                        std::int64_t kc, float* tile, float* c, std::int64_t ldc,
                        std::int64_t m_valid, std::int64_t n_valid, bool accumulate) = nullptr;

  // Decode-as-you-go product for few activation rows (1..stream_rows), over all of K:
  //   c[m][n] = sum_k a[m][k] * B_hat[n][k]  for m < a_rows, n_begin <= n < min(n_end, n_valid);
  // a in chunk order (row stride lda, k_padded columns); n_begin, n_end multiples of kRowPad.
  void (*stream)(const float* a, std::int64_t lda, int a_rows, const WeightView& w,
                 std::int64_t n_begin, std::int64_t n_end, std::int64_t n_valid, float* c,
                 std::int64_t ldc) = nullptr;
};

// The table of each ISA; nullptr for an ISA not compiled into this build (non-x86 targets).
const KernelTable* scalar_kernels();
const KernelTable* avx2_kernels();
const KernelTable* avx512_kernels();
const KernelTable* kernels_for(Isa isa);

}  // namespace fp4gemm::cpu
