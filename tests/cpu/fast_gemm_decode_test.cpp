// The weight decoder of each cpu-fast ISA in isolation: every one of the 256 code bytes under
// every finite scale code, decoded to fp32 panels, must equal the block values of the tensor
// (Fp4Tensor::block_value, the codec of codecs.hpp) bit for bit, in the chunk order of
// fast_gemm_kernels.hpp, and the K padding must decode to zeros.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "cpu/fast_gemm_kernels.hpp"
#include "cpu/fast_gemm_pack.hpp"
#include "fast_gemm_check.hpp"
#include "fp4gemm/host_device.hpp"
#include "fp4gemm/layout.hpp"

namespace fp4gemm::test {
namespace {

using cpu::Isa;

std::string case_name(const testing::TestParamInfo<std::tuple<Isa, Fp4Format>>& info) {
  std::string name = fmt::format("{}_{}", cpu::to_string(std::get<0>(info.param)),
                                 to_string(std::get<1>(info.param)));
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

// rows x k tensor whose bytes run through 0..255 and whose scale codes run through every
// non-NaN code (E4M3: 0x7F and 0xFF are NaN; UE8M0: 0xFF), in linear layout.
Fp4Tensor every_code_tensor(Fp4Format format, std::int64_t rows, std::int64_t k) {
  Fp4Tensor t;
  t.format = format;
  t.rows = rows;
  t.cols = k;
  t.data.resize(std::size_t(rows * k / 2));
  for (std::size_t i = 0; i < t.data.size(); ++i) t.data[i] = std::uint8_t(i * 7 + i / 256);
  t.scales.resize(std::size_t(rows * t.scale_cols()));
  std::uint32_t code = 0;
  for (auto& s : t.scales) {
    do code = (code + 1) % 256;
    while (format == Fp4Format::nvfp4 ? (code & 0x7F) == 0x7F : code == 0xFF);
    s = std::uint8_t(code);
  }
  t.validate();
  return t;
}

class FastGemmDecodeTest : public PerIsaTest<Fp4Format> {};

TEST_P(FastGemmDecodeTest, PanelsEqualBlockValuesInChunkOrder) {
  const cpu::KernelTable& kernels = *cpu::kernels_for(isa());
  const Fp4Format format = test_case();
  const std::int64_t lanes = kernels.lanes, chunk = 2 * lanes;
  // 8 rows x 1040 elements: 4160 bytes (every byte value 16 times) and 520 / 260 scale codes;
  // K = 1040 is padded to 1056 (NVFP4), K = 1056 needs no padding (MXFP4).
  const std::int64_t rows = 8, k = format == Fp4Format::nvfp4 ? 1040 : 1056;
  const Fp4Tensor t = every_code_tensor(format, rows, k);
  const cpu::PreparedWeights prepared = cpu::prepare_weights(t);
  const cpu::WeightView w = prepared.view();
  ASSERT_EQ(w.k_padded, round_up(k, cpu::kKPad));
  // Two panels: all of K from 0, and K from one chunk-padding step on (k0 > 0).
  for (const std::int64_t k0 : {std::int64_t{0}, cpu::kKPad}) {
    const std::int64_t kc = w.k_padded - k0;
    std::vector<float> panel(std::size_t(rows * kc), -1.0f);
    kernels.decode_panel(w, 0, rows, k0, kc, panel.data());
    std::int64_t mismatches = 0;
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t kk = 0; kk < kc; ++kk) {
        const std::int64_t e = kk % chunk;  // position in chunk order -> element of the chunk
        const std::int64_t element = k0 + kk - e + (e < lanes ? 2 * e : 2 * (e - lanes) + 1);
        const float want = element < k ? t.block_value(r, element) : 0.0f;
        const float got = panel[std::size_t(r * kc + kk)];
        if (float_bits(got) != float_bits(want) && ++mismatches <= 5)
          ADD_FAILURE() << "row " << r << " element " << element << " (k0 " << k0 << "): got "
                        << got << ", want " << want;
      }
    EXPECT_EQ(mismatches, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(BothFormats, FastGemmDecodeTest,
                         testing::Combine(testing::ValuesIn(cpu::kAllIsas),
                                          testing::Values(Fp4Format::nvfp4, Fp4Format::mxfp4)),
                         case_name);

}  // namespace
}  // namespace fp4gemm::test
