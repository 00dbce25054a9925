#pragma once
// The compute-capability gate of every CUDA backend's availability().
#include <string_view>

#include "fp4gemm/backend.hpp"

namespace fp4gemm::cuda {

// Yes when the current CUDA device is at least sm_`min_sm` (10 * major + minor); otherwise why
// not: "<need>; this GPU is sm_90", or the runtime's reason when there is no device at all.
Verdict require_sm(int min_sm, std::string_view need);

}  // namespace fp4gemm::cuda
