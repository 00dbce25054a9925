// libFuzzer target: parse_fp4_safetensors on arbitrary bytes returns or throws fp4gemm::Error.
// Any other exception, a crash, or (under ASan) an out-of-bounds access is a finding.
#include <cstddef>
#include <cstdint>
#include <span>

#include "fp4gemm/error.hpp"
#include "fp4gemm/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    fp4gemm::parse_fp4_safetensors(std::span<const std::uint8_t>(data, size), "fuzz");
  } catch (const fp4gemm::Error&) {
    // Rejecting the input with an fp4gemm error is the expected outcome for most inputs.
  }
  return 0;
}
