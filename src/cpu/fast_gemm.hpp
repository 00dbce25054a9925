#pragma once
// cpu-fast: the multi-threaded, vectorized CPU backend, and the choice of its instruction set.
//
// The ISA is chosen from cpuid (query_cpu()) when prepare() runs; make_fast_backend(Isa) forces
// one, so that tests can run every path the CPU supports (and say which ones it does not).
#include <memory>
#include <string_view>

#include "fp4gemm/backend.hpp"
#include "fp4gemm/device.hpp"

namespace fp4gemm::cpu {

// Kernel families of cpu-fast (fast_gemm_scalar.cpp, fast_gemm_avx2.cpp, fast_gemm_avx512.cpp).
enum class Isa { scalar, avx2, avx512 };
inline constexpr Isa kAllIsas[] = {Isa::scalar, Isa::avx2, Isa::avx512};
std::string_view to_string(Isa isa);  // "scalar", "avx2+fma", "avx512f"

// Whether `cpu` can run the kernels of `isa`, and if not why ("the CPU or OS lacks AVX-512F",
// "not compiled into this build").
Verdict isa_support(Isa isa, const CpuInfo& cpu);
// The fastest ISA that `cpu` supports.
Isa best_isa(const CpuInfo& cpu);

// cpu-fast on the best ISA of this CPU.
std::unique_ptr<Backend> make_fast_backend();
// cpu-fast forced onto `isa`; availability() says no where this CPU cannot run it.
std::unique_ptr<Backend> make_fast_backend(Isa isa);

}  // namespace fp4gemm::cpu
