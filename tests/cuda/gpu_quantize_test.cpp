// The GPU quantizer against the CPU quantizer: the same data bytes, scale bytes and scale_2, and
// the same errors, on random data with outliers and on adversarial data (exact E2M1 ties, zero,
// constant, huge and fp32-subnormal blocks, signed zeros), for both formats and layouts, f32/bf16/
// f16 inputs and awkward shapes. Inputs are drawn fresh each run; the seed is in every failure.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "cuda/gpu_quantize.hpp"
#include "fp4gemm/codecs.hpp"
#include "fp4gemm/device.hpp"
#include "fp4gemm/error.hpp"
#include "fp4gemm/layout.hpp"
#include "fp4gemm/quantize.hpp"
#include "fp4gemm/tensor.hpp"

namespace fp4gemm::cuda {
namespace {

constexpr DType kDtypes[] = {DType::f32, DType::bf16, DType::f16};
constexpr Fp4Format kFormats[] = {Fp4Format::nvfp4, Fp4Format::mxfp4};
constexpr ScaleLayout kLayouts[] = {ScaleLayout::linear, ScaleLayout::swizzled};

enum class Data { normal_outliers, adversarial, ties, zeros, tiny, huge };

const char* name(Data d) {
  constexpr const char* names[] = {"normal+outliers", "adversarial", "ties",
                                   "zeros",           "tiny",        "huge"};
  return names[int(d)];
}

// Magnitudes that stay finite in `dtype`: fp32/bf16 reach 1e38 and the fp32 subnormals (1e-38);
// fp16 tops out at 65504 and its subnormals start at 6e-8.
float huge_value(DType dtype) { return dtype == DType::f16 ? 6.0e4f : 1.0e38f; }
float tiny_value(DType dtype) { return dtype == DType::f16 ? 1.0e-7f : 1.0e-38f; }

// One block of values m * 2^e, m drawn from the E2M1 midpoints and codes, holding +-6 * 2^e so
// that its scale is 2^e for MXFP4 (and for NVFP4 with a power-of-two scale_2 within e4m3 reach):
// then x / divisor hits the ties 0.25, 0.75, ..., 5 exactly.
void fill_ties_block(float* x, int block, int e, std::mt19937& rng) {
  constexpr float mantissas[] = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f, 0.5f,
                                 1.0f,  1.5f,  2.0f,  3.0f,  4.0f, 6.0f, 0.0f};
  std::uniform_int_distribution<int> pick(0, 14), sign(0, 1);
  for (int i = 0; i < block; ++i) {
    const float m = i == block / 2 ? 6.0f : mantissas[pick(rng)];
    x[i] = std::ldexp(sign(rng) ? -m : m, e);
  }
}

// Tie blocks throughout, e drawn per block from [e_min, e_max].
void fill_ties(std::vector<float>& v, int block, int e_min, int e_max, std::mt19937& rng) {
  std::uniform_int_distribution<int> exponent(e_min, e_max);
  for (std::size_t b = 0; b < v.size(); b += std::size_t(block))
    fill_ties_block(v.data() + b, block, exponent(rng), rng);
}

// One of eight block patterns per block, in turn, with random exponents and signs.
void fill_adversarial(std::vector<float>& v, int block, DType dtype, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-8, 8);
  for (std::size_t b = 0; b < v.size(); b += std::size_t(block)) {
    float* x = v.data() + b;
    const int e = exponent(rng);
    const float scale = std::ldexp(1.0f, e);
    switch ((b / std::size_t(block)) % 8) {
      case 0:  // zero block, mixed signed zeros
        for (int i = 0; i < block; ++i) x[i] = i % 2 ? -0.0f : 0.0f;
        break;
      case 1: {  // constant block
        const float c = normal(rng) * scale;
        for (int i = 0; i < block; ++i) x[i] = c;
        break;
      }
      case 2:  // exact ties (near-ties where scale_2 is measured)
        fill_ties_block(x, block, e, rng);
        break;
      case 3:  // huge amax, the rest 1/16 of it
        for (int i = 0; i < block; ++i) x[i] = unit(rng) * huge_value(dtype) / 16.0f;
        x[block - 1] = (x[0] < 0 ? -1.0f : 1.0f) * huge_value(dtype);
        break;
      case 4:  // tiny amax: fp32 subnormals (fp16 subnormals for f16 input)
        for (int i = 0; i < block; ++i) x[i] = normal(rng) * tiny_value(dtype);
        break;
      case 5:  // alternating signs with -0.0 every third element
        for (int i = 0; i < block; ++i)
          x[i] = i % 3 == 0 ? -0.0f : (i % 2 ? -1.0f : 1.0f) * std::fabs(normal(rng)) * scale;
        break;
      case 6:  // one nonzero element among -0.0
        for (int i = 0; i < block; ++i) x[i] = -0.0f;
        x[block / 3] = normal(rng) * scale;
        break;
      default:
        for (int i = 0; i < block; ++i) x[i] = normal(rng) * scale;
    }
  }
}

HostMatrix make_input(Data kind, DType dtype, std::int64_t rows, std::int64_t cols, int block,
                      std::mt19937& rng) {
  std::vector<float> v(std::size_t(rows * cols), 0.0f);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  switch (kind) {
    case Data::normal_outliers:  // N(0, 1), one element in 64 times 30
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = normal(rng) * (i % 64 == 17 ? 30.0f : 1.0f);
      break;
    case Data::adversarial:
      fill_adversarial(v, block, dtype, rng);
      break;
    case Data::ties:
      fill_ties(v, block, -8, 8, rng);
      break;
    case Data::zeros:
      break;
    case Data::tiny:
      for (float& x : v) x = normal(rng) * tiny_value(dtype);
      break;
    case Data::huge:
      for (float& x : v) x = unit(rng) * huge_value(dtype);  // |x| < huge: stays finite
      v[v.size() / 2] = huge_value(dtype);
      break;
  }
  return HostMatrix::from_f32(rows, cols, std::move(v)).converted(dtype);
}

// First difference of two byte arrays, or "" if equal.
std::string first_difference(const std::vector<std::uint8_t>& gpu,
                             const std::vector<std::uint8_t>& cpu) {
  if (gpu.size() != cpu.size())
    return "size " + std::to_string(gpu.size()) + " vs " + std::to_string(cpu.size());
  for (std::size_t i = 0; i < gpu.size(); ++i)
    if (gpu[i] != cpu[i])
      return "byte " + std::to_string(i) + ": gpu " + std::to_string(gpu[i]) + ", cpu " +
             std::to_string(cpu[i]);
  return "";
}

void expect_same_tensor(const Fp4Tensor& gpu, const Fp4Tensor& cpu) {
  EXPECT_EQ(gpu.format, cpu.format);
  EXPECT_EQ(gpu.scale_layout, cpu.scale_layout);
  EXPECT_EQ(gpu.rows, cpu.rows);
  EXPECT_EQ(gpu.cols, cpu.cols);
  EXPECT_EQ(float_bits(gpu.scale_2), float_bits(cpu.scale_2))
      << gpu.scale_2 << " vs " << cpu.scale_2;
  EXPECT_EQ(first_difference(gpu.data, cpu.data), "") << "data";
  EXPECT_EQ(first_difference(gpu.scales, cpu.scales), "") << "scales";
}

void expect_same_as_cpu(const HostMatrix& x, const QuantizeOptions& options) {
  expect_same_tensor(quantize_on_gpu(x, options), quantize(x, options));
}

// The message of the InvalidArgument that `f` throws ("" if it throws none).
template <typename F>
std::string invalid_argument_message(F&& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}

std::string describe(Data kind, DType dtype, Fp4Format format, ScaleLayout layout,
                     std::int64_t rows, std::int64_t cols, unsigned seed) {
  return std::string(name(kind)) + " " + std::string(to_string(dtype)) + " -> " +
         std::string(to_string(format)) + " " + std::string(to_string(layout)) + " " +
         std::to_string(rows) + " x " + std::to_string(cols) + ", seed " + std::to_string(seed);
}

class GpuQuantize : public testing::Test {
 protected:
  void SetUp() override {
    if (!fp4gemm::cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  }
  unsigned seed_ = std::random_device{}();
  std::mt19937 rng_{seed_};
};

TEST_F(GpuQuantize, MatchesCpuOnEveryShapeFormatLayoutAndDtype) {
  for (Data kind : {Data::normal_outliers, Data::adversarial})
    for (DType dtype : kDtypes)
      for (Fp4Format format : kFormats)
        for (ScaleLayout layout : kLayouts)
          for (std::int64_t rows : {1, 3, 127, 128, 300})
            for (std::int64_t cols : {block_size(format), 3 * block_size(format), 2048}) {
              SCOPED_TRACE(describe(kind, dtype, format, layout, rows, cols, seed_));
              const HostMatrix x = make_input(kind, dtype, rows, cols, block_size(format), rng_);
              expect_same_as_cpu(x, {format, layout, {}, {}});
            }
}

// A lane width other than 0 (the rule), 4 or 16 is refused by name, before anything is enqueued.
TEST_F(GpuQuantize, RejectsAnUnknownLaneWidth) {
  Stream stream;
  const HostMatrix x = make_input(Data::normal_outliers, DType::bf16, 1, 16, 16, rng_);
  const DeviceBuffer<std::uint8_t> input = upload_matrix(x, stream.get());
  DeviceFp4Tensor out = make_device_fp4_tensor(Fp4Format::nvfp4, ScaleLayout::linear, 1, 16);
  QuantizeStatus status(stream.get());
  EXPECT_EQ(invalid_argument_message([&] {
              quantize_on_device(input.get(), DType::bf16, 1, 16, {Fp4Format::nvfp4, ScaleLayout::linear, {}, {}},
                                 1.0f, out, status, stream.get(), nullptr, 8);
            }),
            "elements_per_lane = 8 must be 0 (the rule), 16 or 4");
}

// Whole tensors that stress the tensor scale: all zero (scale_2 = 1), every element an fp32
// subnormal (amax / 2688 underflows), amax near the top of the range, exact ties everywhere.
TEST_F(GpuQuantize, MatchesCpuOnZeroTinyHugeAndTieTensors) {
  for (Data kind : {Data::zeros, Data::tiny, Data::huge, Data::ties})
    for (DType dtype : kDtypes)
      for (Fp4Format format : kFormats)
        for (ScaleLayout layout : kLayouts)
          for (std::int64_t rows : {3, 300}) {
            const std::int64_t cols = 3 * block_size(format);
            SCOPED_TRACE(describe(kind, dtype, format, layout, rows, cols, seed_));
            const HostMatrix x = make_input(kind, dtype, rows, cols, block_size(format), rng_);
            expect_same_as_cpu(x, {format, layout, {}, {}});
          }
}

// NVFP4 with the tensor scale given, in both spellings: powers of two (exact ties at every block
// scale from 2^-9 to 2^8 and saturation at 448), the FlashInfer global_sf = 2688 / amax, and
// scales far below and above the measured one (saturated codes, underflowing block scales).
TEST_F(GpuQuantize, MatchesCpuWithGivenScale2AndGlobalSf) {
  for (DType dtype : kDtypes)
    for (ScaleLayout layout : kLayouts) {
      const std::int64_t rows = 127, cols = 3 * 16;
      for (int log2_scale_2 : {-10, 0, 4}) {
        SCOPED_TRACE(describe(Data::ties, dtype, Fp4Format::nvfp4, layout, rows, cols, seed_) +
                     ", scale_2 = 2^" + std::to_string(log2_scale_2));
        std::vector<float> v(std::size_t(rows * cols));
        fill_ties(v, 16, log2_scale_2 - 9, log2_scale_2 + 8, rng_);
        const HostMatrix x = HostMatrix::from_f32(rows, cols, std::move(v)).converted(dtype);
        expect_same_as_cpu(x, {Fp4Format::nvfp4, layout, std::ldexp(1.0f, log2_scale_2), {}});
      }
      const HostMatrix x = make_input(Data::normal_outliers, dtype, rows, cols, 16, rng_);
      const float measured = resolve_scale_2(x, {});
      for (float factor : {1.0f / 64, 0.3f, 1.0f, 7.0f, 4096.0f}) {
        SCOPED_TRACE(
            describe(Data::normal_outliers, dtype, Fp4Format::nvfp4, layout, rows, cols, seed_) +
            ", factor " + std::to_string(factor));
        expect_same_as_cpu(x, {Fp4Format::nvfp4, layout, measured * factor, {}});
        expect_same_as_cpu(x, {Fp4Format::nvfp4, layout, {}, 1.0f / (measured * factor)});
      }
    }
}

TEST_F(GpuQuantize, RejectsBadOptionsAndShapesWithTheCpuMessage) {
  const HostMatrix x = make_input(Data::normal_outliers, DType::f32, 4, 64, 16, rng_);
  const HostMatrix ragged = make_input(Data::normal_outliers, DType::f32, 4, 40, 8, rng_);
  const QuantizeOptions cases[] = {
      {Fp4Format::mxfp4, ScaleLayout::linear, 0.5f, {}},
      {Fp4Format::nvfp4, ScaleLayout::linear, 0.5f, 2.0f},
      {Fp4Format::nvfp4, ScaleLayout::linear, -1.0f, {}},
      {Fp4Format::nvfp4, ScaleLayout::swizzled, {}, 0.0f},
  };
  for (const QuantizeOptions& options : cases) {
    const std::string cpu = invalid_argument_message([&] { quantize(x, options); });
    ASSERT_NE(cpu, "");
    EXPECT_EQ(invalid_argument_message([&] { quantize_on_gpu(x, options); }), cpu);
  }
  for (Fp4Format format : kFormats) {  // K = 40: not a multiple of 16 or 32
    const std::string cpu = invalid_argument_message([&] {
      quantize(ragged, {format, ScaleLayout::linear, {}, {}});
    });
    ASSERT_NE(cpu, "");
    EXPECT_EQ(invalid_argument_message([&] {
                quantize_on_gpu(ragged, {format, ScaleLayout::linear, {}, {}});
              }),
              cpu);
  }
}

// NaN and +-inf anywhere: both quantizers throw, naming the same first position in row-major
// order. The measured-scale path finds it in the amax pass, the given-scale and MXFP4 paths in
// the quantization pass.
TEST_F(GpuQuantize, RejectsNanAndInfNamingTheFirstPositionLikeTheCpu) {
  const float nan = std::nanf(""), inf = INFINITY;
  struct Bad {
    std::int64_t row, col;
    float value;
  };
  const std::vector<std::vector<Bad>> cases = {
      {{3, 17, nan}},
      {{0, 0, -inf}},
      {{299, 191, inf}},
      {{5, 1, nan}, {3, 17, inf}},                   // a later row with an earlier column
      {{3, 18, -inf}, {3, 17, nan}, {200, 5, inf}},  // two in one group of 8
      {{128, 100, nan}, {128, 37, -inf}},            // two in one row, different blocks
  };
  for (DType dtype : kDtypes)
    for (Fp4Format format : kFormats)
      for (bool given : {false, true}) {
        if (format == Fp4Format::mxfp4 && given) continue;  // MXFP4 has no tensor scale
        for (const std::vector<Bad>& bad : cases) {
          const std::int64_t rows = 300, cols = 192;
          std::vector<float> v =
              make_input(Data::normal_outliers, DType::f32, rows, cols, 16, rng_).f32;
          for (const Bad& b : bad) v[std::size_t(b.row * cols + b.col)] = b.value;
          const HostMatrix x = HostMatrix::from_f32(rows, cols, std::move(v)).converted(dtype);
          const QuantizeOptions options{format,
                                        ScaleLayout::swizzled,
                                        given ? std::optional<float>(0.01f) : std::nullopt,
                                        {}};
          const std::string cpu = invalid_argument_message([&] { quantize(x, options); });
          SCOPED_TRACE(std::string(to_string(dtype)) + " " + std::string(to_string(format)) +
                       (given ? " given scale_2: " : " measured scale_2: ") + cpu);
          ASSERT_NE(cpu, "");
          EXPECT_EQ(invalid_argument_message([&] { quantize_on_gpu(x, options); }), cpu);
        }
      }
  std::vector<float> v(4 * 32, 1.0f);
  v[3 * 32 + 17] = nan;
  EXPECT_EQ(invalid_argument_message(
                [&] { quantize_on_gpu(HostMatrix::from_f32(4, 32, std::move(v)), {}); }),
            "input has NaN at row 3, column 17");
}

// The NaN / inf report with each lane width forced (a 300 x 192 tensor gets 4 elements per lane by
// the size rule, so the rule alone never reports from 16-element lanes): the CPU's message, the
// first non-finite element in row-major order, from lanes of 16 and of 4.
TEST_F(GpuQuantize, NanAndInfAreReportedLikeTheCpuAtEveryLaneWidth) {
  const std::int64_t rows = 300, cols = 192;
  std::vector<float> v = make_input(Data::normal_outliers, DType::f32, rows, cols, 16, rng_).f32;
  v[std::size_t(200 * cols + 5)] = INFINITY;
  v[std::size_t(3 * cols + 17)] = std::nanf("");
  const HostMatrix x = HostMatrix::from_f32(rows, cols, std::move(v)).converted(DType::bf16);
  const QuantizeOptions options{Fp4Format::nvfp4, ScaleLayout::linear, 0.01f, {}};
  const std::string cpu = invalid_argument_message([&] { quantize(x, options); });
  ASSERT_NE(cpu, "");
  for (int lane_width : {16, 4}) {
    SCOPED_TRACE(lane_width);
    Stream stream;
    const DeviceBuffer<std::uint8_t> input = upload_matrix(x, stream.get());
    DeviceFp4Tensor out = make_device_fp4_tensor(Fp4Format::nvfp4, ScaleLayout::linear, rows, cols);
    QuantizeStatus status(stream.get());
    quantize_on_device(input.get(), DType::bf16, rows, cols, options, 0.01f, out, status, stream.get(), nullptr,
                       lane_width);
    EXPECT_EQ(invalid_argument_message([&] { status.throw_if_non_finite(stream.get()); }), cpu);
  }
}

// quantize_on_device writes every byte it owns: outputs poisoned with 0x00 and then 0xFF give the
// CPU's bytes both times (the swizzled layout's padding included).
TEST_F(GpuQuantize, WritesEveryOutputByteIncludingPadding) {
  Stream stream;
  for (DType dtype : kDtypes)
    for (Fp4Format format : kFormats)
      for (ScaleLayout layout : kLayouts)
        for (std::int64_t rows : {1, 130}) {
          const std::int64_t cols = 5 * block_size(format);
          SCOPED_TRACE(describe(Data::adversarial, dtype, format, layout, rows, cols, seed_));
          const HostMatrix x =
              make_input(Data::adversarial, dtype, rows, cols, block_size(format), rng_);
          const QuantizeOptions options{format, layout, {}, {}};
          const Fp4Tensor cpu = quantize(x, options);
          const DeviceBuffer<std::uint8_t> input = upload_matrix(x, stream.get());
          for (int poison : {0x00, 0xFF}) {
            DeviceFp4Tensor out = make_device_fp4_tensor(format, layout, rows, cols);
            out.data.fill_bytes(poison, stream.get());
            out.scales.fill_bytes(poison, stream.get());
            QuantizeStatus status(stream.get());
            quantize_on_device(input.get(), dtype, rows, cols, options, cpu.scale_2, out, status,
                               stream.get());
            status.throw_if_non_finite(stream.get());
            expect_same_tensor(download_fp4_tensor(out), cpu);
          }
        }
}

// The block values quantize_on_device writes on request (cuda-decode's w4a4 reads A as them):
// every element's code x block scale of the CPU's tensor, bit for bit, into a buffer poisoned
// with NaN; the FP4 output (poisoned too) is the CPU's, request or not. At both lane widths of the
// quantize kernel, forced (16 elements per lane, or a scale block spread over 4 / 8 lanes of 4).
TEST_F(GpuQuantize, WritesTheBlockValuesOfItsCodes) {
  Stream stream;
  for (int per_lane : {4, 16})
    for (Data kind : {Data::normal_outliers, Data::adversarial, Data::huge})
      for (DType dtype : kDtypes)
        for (Fp4Format format : kFormats)
          for (ScaleLayout layout : kLayouts)
            for (std::int64_t rows : {1, 3, 130}) {
              const std::int64_t cols = 5 * block_size(format);
              SCOPED_TRACE(describe(kind, dtype, format, layout, rows, cols, seed_) + ", elements per lane " +
                           std::to_string(per_lane));
              const HostMatrix x = make_input(kind, dtype, rows, cols, block_size(format), rng_);
              const QuantizeOptions options{format, layout, {}, {}};
              const Fp4Tensor cpu = quantize(x, options);
              const DeviceBuffer<std::uint8_t> input = upload_matrix(x, stream.get());
              DeviceFp4Tensor out = make_device_fp4_tensor(format, layout, rows, cols);
              out.data.fill_bytes(0xFF, stream.get());
              out.scales.fill_bytes(0xFF, stream.get());
              DeviceBuffer<std::uint16_t> values(std::size_t(rows * cols));
              values.fill_bytes(0xFF, stream.get());
              QuantizeStatus status(stream.get());
              quantize_on_device(input.get(), dtype, rows, cols, options, cpu.scale_2, out, status,
                                 stream.get(), values.get(), per_lane);
              status.throw_if_non_finite(stream.get());
              expect_same_tensor(download_fp4_tensor(out), cpu);
              const std::vector<std::uint16_t> got = values.download();
              int mismatches = 0, nonzero = 0;
              for (std::int64_t r = 0; r < rows; ++r)
                for (std::int64_t k = 0; k < cols; ++k) {
                  const std::uint16_t want = bf16_from_float(cpu.block_value(r, k));
                  const std::uint16_t have = got[std::size_t(r * cols + k)];
                  nonzero += (have & 0x7FFF) != 0;
                  if (have != want && ++mismatches <= 5)
                    ADD_FAILURE() << "(" << r << ", " << k << "): bf16 0x" << std::hex << have
                                  << ", want 0x" << want << std::dec;
                }
              EXPECT_EQ(mismatches, 0);
              if (kind != Data::adversarial) {
                EXPECT_GT(nonzero, 0) << "all block values zero";
              }
            }
}

// The activation-quantization use: quantize_on_device captured into a CUDA graph (which fails on
// any allocation or synchronization inside), replayed, and checked against the CPU at the size of
// a large GLM-5 activation, 16384 x 6144 bf16 -> NVFP4 swizzled. Prints the time per replay.
TEST_F(GpuQuantize, LargeCapturedInAGraphMatchesCpu) {
  const std::int64_t rows = 16384, cols = 6144;
  const HostMatrix x = make_input(Data::normal_outliers, DType::bf16, rows, cols, 16, rng_);
  const QuantizeOptions options{Fp4Format::nvfp4, ScaleLayout::swizzled, {}, {}};
  const Fp4Tensor cpu = quantize(x, options);

  Stream stream;
  const DeviceBuffer<std::uint8_t> input = upload_matrix(x, stream.get());
  QuantizeStatus status(stream.get());
  const auto measure_start = std::chrono::steady_clock::now();
  const float scale_2 =
      measure_scale_2_on_device(input.get(), x.dtype, rows, cols, status, stream.get());
  const double measure_us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - measure_start)
          .count();
  EXPECT_EQ(float_bits(scale_2), float_bits(cpu.scale_2));

  DeviceFp4Tensor out = make_device_fp4_tensor(options.format, options.scale_layout, rows, cols);
  out.data.fill_bytes(0xFF, stream.get());
  cudaGraph_t graph = nullptr;
  FP4GEMM_CUDA_CHECK(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeGlobal));
  quantize_on_device(input.get(), x.dtype, rows, cols, options, scale_2, out, status, stream.get());
  FP4GEMM_CUDA_CHECK(cudaStreamEndCapture(stream.get(), &graph));
  cudaGraphExec_t exec = nullptr;
  FP4GEMM_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  constexpr int kReplays = 20;
  Event start, stop;
  FP4GEMM_CUDA_CHECK(cudaGraphLaunch(exec, stream.get()));  // warm-up
  start.record(stream.get());
  for (int i = 0; i < kReplays; ++i) FP4GEMM_CUDA_CHECK(cudaGraphLaunch(exec, stream.get()));
  stop.record(stream.get());
  status.throw_if_non_finite(stream.get());
  const double us = 1e3 * stop.elapsed_since(start) / kReplays;
  FP4GEMM_CUDA_CHECK(cudaGraphExecDestroy(exec));
  FP4GEMM_CUDA_CHECK(cudaGraphDestroy(graph));
  expect_same_tensor(download_fp4_tensor(out), cpu);

  const double bytes = double(rows * cols) * 2 + double(cpu.data.size() + cpu.scales.size());
  std::printf(
      "quantize 16384 x 6144 bf16 -> nvfp4 swizzled: %.1f us per graph replay, %.2f TB/s; "
      "amax pass with its sync: %.1f us\n",
      us, bytes / us * 1e-6, measure_us);
}

}  // namespace
}  // namespace fp4gemm::cuda
