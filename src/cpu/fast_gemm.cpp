// cpu-fast: the Backend, the choice of ISA, and the run() that ties packing (fast_gemm_pack.hpp)
// to the driver (fast_gemm_driver.hpp) and the per-ISA kernels (fast_gemm_kernels.hpp).
//
// Accuracy. Every product A_hat * B_hat is exact in fp32 (w4a16: 8 x 6 significant bits,
// w4a4: 6 x 6), as is every decoded value, unless a product falls below 2^-126 (fp32
// subnormals; the operands quantize never produce that). So the only errors are the roundings
// on each product's way to D. Counting them for the worst path (lanes W >= 8, K padded to
// Kp <= K + 16, K blocks of kKBlock = 256):
//   lane accumulation   Kp / W - 1   (the first FMA into a zero accumulator is exact)
//   lane tree sum       log2(W)      (3 for W = 8, 4 for W = 16)
//   K-block additions   ceil(Kp / kKBlock) - 1   (blocked kernel only)
//   alpha               1
// n <= Kp/W + log2(W) + ceil(Kp/kKBlock) - 1 is 7 for K = 16 (Kp = 32, W = 8), 7 for K = 32,
// and at most K/8 + K/256 + 6 <= K/2 for K >= 48; so n <= K/2 for every K >= 16. With unit roundoff
// u = 2^-24, |D - R| <= gamma_n * S, gamma_n = n u / (1 - n u) <= 2 n u <= K * 2^-24 while
// n u <= 1/2, which holds for K <= 2^24 (can_implement refuses larger K). Hence
// accumulation_unit = 2^-24; 16-bit outputs add their own rounding of the fp32 result.
#include "cpu/fast_gemm.hpp"

#include <memory>
#include <optional>

#include <fmt/format.h>

#include "cpu/fast_gemm_driver.hpp"
#include "cpu/fast_gemm_kernels.hpp"
#include "cpu/fast_gemm_pack.hpp"
#include "cpu/host_gemm_run.hpp"
#include "fp4gemm/error.hpp"
#include "fp4gemm/layout.hpp"

namespace fp4gemm::cpu {
namespace {

constexpr std::int64_t kMaxK = std::int64_t{1} << 24;  // the accuracy bound above
static_assert(kKBlock >= 256, "the accuracy bound above counts at most K/256 K-block additions");

// What run() needs besides the activations: the kernels, the prepared weights, the scalars.
struct FastGemmState {
  const KernelTable* kernels = nullptr;
  PreparedWeights weights;
  float alpha = 1.0f;
  std::vector<float> packed_a;  // reused by every run()

  void compute(const GemmOperands& ops, std::vector<float>& out) {
    const GemmShape& s = ops.problem.shape;
    const std::int64_t a_rows = round_up(s.m, kernels->tile_m);
    pack_activations(ops, kernels->lanes, a_rows, weights.k_padded, packed_a);
    FastGemmArgs args;
    args.kernels = kernels;
    args.weights = weights.view();
    args.a = packed_a.data();
    args.m = s.m;
    args.n = s.n;
    args.alpha = alpha;
    args.out_dtype = ops.problem.out_dtype;
    args.out = out.data();
    run_fast_gemm(args);
  }
};

class FastBackend final : public Backend {
 public:
  explicit FastBackend(std::optional<Isa> forced)
      : forced_(forced),
        summary_(fmt::format(
            "CPU, exact products, fp32 accumulation: FP4 decoded in registers for small M, to "
            "fp32 panels for a register-blocked FMA kernel otherwise; all cores; ISA {}",
            forced ? fmt::format("forced to {}", to_string(*forced))
                   : std::string("chosen by cpuid (scalar, AVX2+FMA, AVX-512F)"))) {}

  std::string_view name() const override { return "cpu-fast"; }
  std::string_view summary() const override { return summary_; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  Accuracy accuracy() const override {
    return {true, 0.0, 0x1p-24, "exact: fp32 products, fp32 accumulation (<= K/2 roundings)"};
  }
  Verdict availability() const override {
    return forced_ ? isa_support(*forced_, query_cpu()) : Verdict::yes();
  }
  Verdict can_implement(const GemmProblem& problem) const override {
    if (const Verdict shape = shape_verdict(problem.shape, problem.format); !shape) return shape;
    if (problem.shape.k > kMaxK)
      return Verdict::no(fmt::format("K = {} exceeds 2^24, beyond which fp32 accumulation has no "
                                     "K * 2^-24 error bound",
                                     problem.shape.k));
    return Verdict::yes();
  }

  std::unique_ptr<GemmRun> prepare(const GemmOperands& operands) const override {
    operands.validate();
    const Verdict fits = can_implement(operands.problem);
    if (!fits) throw InvalidArgument(fmt::format("cpu-fast: {}", fits.reason));
    const CpuInfo cpu = query_cpu();
    const Isa isa = forced_ ? *forced_ : best_isa(cpu);
    const Verdict runs = isa_support(isa, cpu);
    if (!runs) throw Error(fmt::format("cpu-fast on {}: {}", to_string(isa), runs.reason));

    auto state = std::make_shared<FastGemmState>();
    state->kernels = kernels_for(isa);
    state->weights = prepare_weights(operands.b);
    state->alpha = operands.alpha_total();
    // The run keeps the activations only; the weights live, prepared, in the state.
    GemmOperands activations;
    activations.problem = operands.problem;
    activations.a_fp4 = operands.a_fp4;
    activations.a_bf16 = operands.a_bf16;
    activations.alpha = operands.alpha;
    return std::make_unique<HostGemmRun>(
        std::move(activations),
        [state](const GemmOperands& ops, std::vector<float>& out) { state->compute(ops, out); });
  }

 private:
  std::optional<Isa> forced_;
  std::string summary_;
};

}  // namespace

std::string_view to_string(Isa isa) {
  switch (isa) {
    case Isa::scalar: return "scalar";
    case Isa::avx2: return "avx2+fma";
    case Isa::avx512: return "avx512f";
  }
  return "?";
}

const KernelTable* kernels_for(Isa isa) {
  switch (isa) {
    case Isa::scalar: return scalar_kernels();
    case Isa::avx2: return avx2_kernels();
    case Isa::avx512: return avx512_kernels();
  }
  return nullptr;
}

Verdict isa_support(Isa isa, const CpuInfo& cpu) {
  if (!kernels_for(isa))
    return Verdict::no(fmt::format("{} kernels are not compiled into this build (not x86-64)",
                                   to_string(isa)));
  switch (isa) {
    case Isa::scalar: return Verdict::yes();
    case Isa::avx2:
      return cpu.avx2 && cpu.fma ? Verdict::yes() : Verdict::no("the CPU or OS lacks AVX2+FMA");
    case Isa::avx512:
      return cpu.avx512f ? Verdict::yes() : Verdict::no("the CPU or OS lacks AVX-512F");
  }
  return Verdict::no("unknown ISA");
}

Isa best_isa(const CpuInfo& cpu) {
  for (Isa isa : {Isa::avx512, Isa::avx2})
    if (isa_support(isa, cpu)) return isa;
  return Isa::scalar;
}

std::unique_ptr<Backend> make_fast_backend() { return std::make_unique<FastBackend>(std::nullopt); }
std::unique_ptr<Backend> make_fast_backend(Isa isa) { return std::make_unique<FastBackend>(isa); }

}  // namespace fp4gemm::cpu
