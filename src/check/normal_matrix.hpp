#pragma once
// Seeded normal values for the random operands (random_operands.cpp) and their tests: a fixed
// generator and a fixed transform, so that a seed gives the same operands with every standard
// library and on any number of threads.
#include <cmath>
#include <cstdint>
#include <random>

#include "cpu/parallel_for.hpp"
#include "fp4gemm/matrix.hpp"

namespace fp4gemm {

// Normal samples from mt19937_64 by Box-Muller.
class NormalSource {
 public:
  explicit NormalSource(std::uint64_t seed) : engine_(seed) {}
  float next() {
    constexpr double two_pi = 6.283185307179586;
    const double u1 = (double(engine_() >> 11) + 0.5) * 0x1p-53;  // (0, 1)
    const double u2 = double(engine_() >> 11) * 0x1p-53;          // [0, 1)
    return float(std::sqrt(-2.0 * std::log(u1)) * std::cos(two_pi * u2));
  }
  std::uint64_t bits() { return engine_(); }

 private:
  std::mt19937_64 engine_;
};

// Values per independently seeded piece of a normal_matrix.
inline constexpr std::int64_t kNormalChunk = std::int64_t(1) << 16;

// rows x cols normal values of standard deviation `sigma`; one element in 256 is scaled by 16,
// like the outlier channels of LLM activations, so that block scales really differ. The values
// come in chunks of kNormalChunk, chunk c from a generator of its own seeded by one draw of
// `source` and c, drawn on `threads` threads: the same values for any thread count.
HostMatrix normal_matrix(NormalSource& source, std::int64_t rows, std::int64_t cols, float sigma,
                         unsigned threads = cpu::hardware_threads());

}  // namespace fp4gemm
