// normal_matrix: seeded normal values in independently seeded chunks, drawn in parallel.
#include "check/normal_matrix.hpp"

#include <algorithm>
#include <vector>

namespace fp4gemm {

HostMatrix normal_matrix(NormalSource& source, std::int64_t rows, std::int64_t cols, float sigma, unsigned threads) {
  std::vector<float> values(std::size_t(rows * cols));
  const std::uint64_t base = source.bits();
  const std::int64_t count = rows * cols, chunks = (count + kNormalChunk - 1) / kNormalChunk;
  cpu::parallel_for(
      chunks,
      [&](std::int64_t first, std::int64_t end) {
        for (std::int64_t c = first; c < end; ++c) {
          NormalSource chunk(base + 0x9E3779B97F4A7C15ull * std::uint64_t(c + 1));  // distinct seeds
          for (std::int64_t i = c * kNormalChunk; i < std::min(count, (c + 1) * kNormalChunk); ++i) {
            float v = sigma * chunk.next();
            if ((chunk.bits() & 255) == 0) v *= 16.0f;
            values[std::size_t(i)] = v;
          }
        }
      },
      threads);
  return HostMatrix::from_f32(rows, cols, std::move(values));
}

}  // namespace fp4gemm
