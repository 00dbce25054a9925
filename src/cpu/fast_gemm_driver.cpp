// The driver of cpu-fast (fast_gemm_driver.hpp).
//
// 1. Small M (uses_stream): the weight rows are split across threads in groups of kRowPad; each
//    thread walks its rows kStreamRowStep at a time and, for each group of up to stream_rows
//    activation rows, runs the streaming kernel over all of K (weights decoded in registers; a
//    second pass over the same rows finds them in L2).
// 2. Larger M (blocked): the output is cut into jobs of mc activation rows x kNc weight rows
//    (mc shrinks until there are enough jobs for every thread); a job walks K in blocks of
//    kKBlock; per block, each kTileGroup weight rows are decoded to fp32 once (16 KB, L1) and
//    multiplied with every micro-tile of the job's activation block (mc x kKBlock floats, at most
//    240 KB, L2), adding into the output.
// 3. Each thread finishes its own part of the output: multiply by alpha (fp32), round to the
//    output dtype.
#include "cpu/fast_gemm_driver.hpp"

#include <algorithm>
#include <vector>

#include "cpu/parallel_for.hpp"
#include "fp4gemm/codecs.hpp"
#include "fp4gemm/layout.hpp"

namespace fp4gemm::cpu {
namespace {

constexpr std::int64_t kNc = 128;          // weight rows of a job
constexpr std::int64_t kMcMax = 240;       // activation rows of a job, at most: 240 KB of A
constexpr std::int64_t kStreamRowStep = 64;  // weight rows a streaming thread finishes at a time
// Multiply-adds per thread below which another thread costs more to start than it saves.
constexpr double kFmasPerThread = double(1 << 20);
static_assert(kKBlock % kKPad == 0 && kNc % kRowPad == 0 && kStreamRowStep % kRowPad == 0);

unsigned threads_for(const FastGemmArgs& args) {
  const double fmas = double(args.m) * double(args.n) * double(args.weights.k_padded);
  return unsigned(std::clamp<double>(fmas / kFmasPerThread, 1.0, hardware_threads()));
}

float to_output(float sum, float alpha, DType dtype) {
  const float v = alpha * sum;
  switch (dtype) {
    case DType::f32: return v;
    case DType::bf16: return bf16_to_float(bf16_from_float(v));
    case DType::f16: return fp16_to_float(fp16_from_float(v));
  }
  return v;
}

// Step 3 on rows [m0, m1) x columns [n0, n1) of the output.
void finish(const FastGemmArgs& args, std::int64_t m0, std::int64_t m1, std::int64_t n0,
            std::int64_t n1) {
  for (std::int64_t m = m0; m < m1; ++m)
    for (std::int64_t n = n0; n < n1; ++n) {
      float& d = args.out[m * args.n + n];
      d = to_output(d, args.alpha, args.out_dtype);
    }
}

void run_stream(const FastGemmArgs& args) {
  const KernelTable& kt = *args.kernels;
  const WeightView& w = args.weights;
  const std::int64_t lda = w.k_padded;
  parallel_for(
      w.rows / kRowPad,
      [&](std::int64_t group_begin, std::int64_t group_end) {
        const std::int64_t row_end = group_end * kRowPad;
        for (std::int64_t n0 = group_begin * kRowPad; n0 < row_end; n0 += kStreamRowStep) {
          const std::int64_t n1 = std::min(n0 + kStreamRowStep, row_end);
          for (std::int64_t m0 = 0; m0 < args.m; m0 += kt.stream_rows) {
            const int rows = int(std::min<std::int64_t>(kt.stream_rows, args.m - m0));
            kt.stream(args.a + m0 * lda, lda, rows, w, n0, n1, args.n, args.out + m0 * args.n,
                      args.n);
          }
          finish(args, 0, args.m, n0, std::min(n1, args.n));
        }
      },
      threads_for(args));
}

void run_blocked(const FastGemmArgs& args) {
  const KernelTable& kt = *args.kernels;
  const WeightView& w = args.weights;
  const std::int64_t lda = w.k_padded;
  const unsigned threads = threads_for(args);
  const std::int64_t m_padded = round_up(args.m, kt.tile_m);
  const std::int64_t n_blocks = (w.rows + kNc - 1) / kNc;
  // Enough jobs for every thread: split M when the weight panels alone are too few.
  const std::int64_t m_splits = std::max<std::int64_t>(
      (m_padded + kMcMax - 1) / kMcMax, (std::int64_t(threads) + n_blocks - 1) / n_blocks);
  const std::int64_t mc = round_up((m_padded + m_splits - 1) / m_splits, kt.tile_m);
  const std::int64_t m_blocks = (m_padded + mc - 1) / mc;
  parallel_for(
      n_blocks * m_blocks,
      [&](std::int64_t job_begin, std::int64_t job_end) {
        std::vector<float> tile(std::size_t(kTileGroup * kKBlock));
        for (std::int64_t job = job_begin; job < job_end; ++job) {
          const std::int64_t n0 = (job / m_blocks) * kNc, m0 = (job % m_blocks) * mc;
          const std::int64_t rows = std::min(kNc, w.rows - n0);
          const std::int64_t a_rows = std::min(mc, m_padded - m0);
          const std::int64_t m_valid = std::min(a_rows, args.m - m0);
          const std::int64_t n_valid = std::min(rows, args.n - n0);
          float* c = args.out + m0 * args.n + n0;
          for (std::int64_t k0 = 0; k0 < w.k_padded; k0 += kKBlock) {
            const std::int64_t kc = std::min(kKBlock, w.k_padded - k0);
            kt.block_product(args.a + m0 * lda + k0, lda, a_rows, w, n0, rows, k0, kc,
                             tile.data(), c, args.n, m_valid, n_valid, k0 > 0);
          }
          finish(args, m0, m0 + m_valid, n0, n0 + n_valid);
        }
      },
      threads);
}

}  // namespace

bool uses_stream(const KernelTable& kernels, std::int64_t m) { return m <= kernels.stream_max_m; }

void run_fast_gemm(const FastGemmArgs& args) {
  if (uses_stream(*args.kernels, args.m)) run_stream(args);
  else run_blocked(args);
}

}  // namespace fp4gemm::cpu
