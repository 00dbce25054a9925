#pragma once
// cpu-fast: the multi-threaded, vectorized CPU backend.
#include <memory>

#include "fp4gemm/backend.hpp"

namespace fp4gemm::cpu {
std::unique_ptr<Backend> make_fast_backend();
}
