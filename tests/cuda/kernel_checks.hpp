#pragma once
// Checks shared by the tests of fp4gemm's own GPU kernels (cuda-mma, cuda-decode): every
// mode x format x scale layout x output dtype; random operands against the CPU reference within
// the backend's accuracy bound (poisoned output must be overwritten; NaN and all-zero output
// fail); bit-exactness on exactly representable operands; and runs that repeat bit for bit.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "fp4gemm/backend.hpp"
#include "fp4gemm/device.hpp"
#include "fp4gemm/gemm.hpp"

namespace fp4gemm::test {

struct Combo {
  Mode mode;
  Fp4Format format;
  ScaleLayout layout;
  DType out;
};

std::vector<Combo> all_combos();
std::string combo_name(const testing::TestParamInfo<Combo>& info);
GemmProblem problem_of(const Combo& c, std::int64_t m, std::int64_t n, std::int64_t k);
std::uint64_t fresh_seed();

// Fresh random operands (the seed is in every failure), alpha on top of the tensor scales.
void check_random(const Backend& backend, const GemmProblem& problem, float alpha = 1.0f);
// The same with A (w4a16) times 2^exponent, exactly: activations near either end of bf16's range.
void check_random_scaled_activations(const Backend& backend, const GemmProblem& problem, int exponent);
// check_random for w4a4 with the operands' bf16 source of A dropped: FP4 activations only, as
// `fp4gemm gemm --mode w4a4` reads them (no GPU requantization in the call).
void check_random_fp4_activations_only(const Backend& backend, const GemmProblem& problem);

// Operands whose every partial sum is an fp32 multiple of 1/4 below 2^18 (|products| <= 144,
// K <= 1024): any summation order gives the exact sum, so D must equal the reference bit for bit.
void check_bit_exact(const Backend& backend, const GemmProblem& problem, std::mt19937_64& rng);

// Calls enqueued back to back without synchronization (a decode step's chain; on sm_90 each a
// programmatic dependent launch that may start during the previous one's tail and must still wait
// for it before touching what that one reads or writes): poison, one call, read; 200 calls;
// poison, one call, read: the last call must give the first one's bits.
void check_chain_gives_the_bits_of_one_call(GemmRun& run);

// backend.availability() on this machine: without a device it names "no CUDA device"; on a GPU
// that `supported` rejects its reason contains `need`; otherwise it is available.
void check_availability(const Backend& backend, bool (*supported)(const GpuInfo&),
                        const std::string& need);

// The declared arithmetic of a kernel that rebuilds FP4 exactly in bf16 and accumulates in fp32
// on tensor cores: exact, no input error, a full fp32 ulp per accumulation step.
void check_bf16_mma_accuracy(const Backend& backend);

}  // namespace fp4gemm::test
