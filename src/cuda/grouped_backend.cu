// The cuda-grouped GroupedBackend and its GemmRun: operands uploaded in the layouts of
// fp4gemm/grouped.hpp, the plan made and the workspace sized once, run() = launch_grouped_gemm.
#include "cuda/grouped_backend.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>

#include "cuda/device_gemm_run.hpp"
#include "cuda/gpu_requirement.hpp"
#include "cuda/grouped_gemm.hpp"
#include "cuda/kernel_operands.hpp"
#include "cuda/mma_backend.hpp"

namespace fp4gemm::cuda {
namespace {

// The experts' byte arrays field(expert) (a member, or bytes computed from the expert), one
// after another.
template <class Field>
std::vector<std::uint8_t> stacked(const GroupedOperands& ops, Field field) {
  std::vector<std::uint8_t> all;
  for (const GemmOperands& expert : ops.experts) {
    const std::vector<std::uint8_t>& bytes = field(expert);
    all.insert(all.end(), bytes.begin(), bytes.end());
  }
  return all;
}

template <class T>
std::vector<T> offsets_as(const GroupedProblem& problem) {
  const std::vector<std::int64_t> offsets = problem.offsets();
  return std::vector<T>(offsets.begin(), offsets.end());
}

class GroupedKernelRun final : public DeviceGemmRun {
 public:
  GroupedKernelRun(const GroupedOperands& ops, const GroupedRunOptions& options)
      : DeviceGemmRun(ops.problem.dense_problem()),
        plan_(plan_grouped_gemm(ops.problem.expert_problem(0), ops.problem.experts(),
                                options.max_tokens_per_expert.value_or(ops.problem.max_tokens()),
                                decode_choices_from_environment())),
        b_data_(stacked(ops, [&](const GemmOperands& x) { return codes_in_form(x.b, plan_.decode.b_form); })),
        b_scale_tiles_(stacked(ops, [&](const GemmOperands& x) {
          return tile_scales(x.b, *plan_.decode.b_form.scale_tile_order);  // the decode CTA's order
        })),
        workspace_(plan_.workspace_floats),
        counters_(plan_.counters),
        status_(1) {
    const GroupedProblem& p = ops.problem;
    std::vector<float> alphas;
    std::vector<std::uint16_t> a_bf16;
    for (const GemmOperands& expert : ops.experts) {
      alphas.push_back(expert.alpha_total());
      a_bf16.insert(a_bf16.end(), expert.a_bf16.half.begin(), expert.a_bf16.half.end());
    }
    alphas_ = DeviceBuffer<float>(alphas);
    if (p.mode == Mode::w4a4) {
      a_data_ = DeviceBuffer<std::uint8_t>(stacked(ops, [](const GemmOperands& x) -> const auto& { return x.a_fp4.data; }));
      a_scales_ = DeviceBuffer<std::uint8_t>(stacked(ops, [](const GemmOperands& x) -> const auto& { return x.a_fp4.scales; }));
      // At least one element: the launcher requires the scratch even where no expert has tokens.
      a_dequantized_ = DeviceBuffer<std::uint16_t>(std::size_t(std::max<std::int64_t>(1, p.total_tokens() * p.k)));
    } else {
      a_bf16_ = DeviceBuffer<std::uint16_t>(a_bf16);
    }
    if (options.offsets_int64) {
      offsets64_ = DeviceBuffer<std::int64_t>(offsets_as<std::int64_t>(p));
    } else {
      require(p.total_tokens() <= INT_MAX, "{} tokens do not fit int32 offsets", p.total_tokens());
      offsets32_ = DeviceBuffer<std::int32_t>(offsets_as<std::int32_t>(p));
    }
    counters_.fill_bytes(0, stream());
    status_.fill_bytes(0, stream());
    pointers_ = {b_data_.get(), b_scale_tiles_.get(), alphas_.get(), a_data_.get(), a_scales_.get(),
                 a_dequantized_.get(), a_bf16_.get(),
                 options.offsets_int64 ? static_cast<const void*>(offsets64_.get()) : offsets32_.get(),
                 options.offsets_int64, output_ptr(), workspace_.get(), counters_.get(), status_.get()};
  }

  void run() override { launch_grouped_gemm(plan_, pointers_, stream()); }
  std::string plan() const override { return plan_.describe(); }

  // D, after checking that every expert fit the bound (status 0).
  std::vector<float> output() override {
    const int status = status_.download().front();
    if (status != 0)
      throw Error(fmt::format("cuda-grouped: expert {} received more than max_tokens_per_expert = {} "
                              "tokens; its rows past the bound were not computed",
                              status - 1, plan_.max_tokens_per_expert));
    return DeviceGemmRun::output();
  }

 private:
  GroupedPlan plan_;
  DeviceBuffer<std::uint8_t> b_data_, b_scale_tiles_, a_data_, a_scales_;
  DeviceBuffer<std::uint16_t> a_bf16_, a_dequantized_;
  DeviceBuffer<float> alphas_;
  DeviceBuffer<std::int32_t> offsets32_;
  DeviceBuffer<std::int64_t> offsets64_;
  DeviceBuffer<float> workspace_;
  DeviceBuffer<int> counters_, status_;
  GroupedPointers pointers_;
};

class GroupedKernelBackend final : public GroupedBackend {
 public:
  std::string_view name() const override { return "cuda-grouped"; }
  std::string_view summary() const override {
    return "fp4gemm's grouped kernel: every expert in one launch (device offsets), each CTA the "
           "cuda-decode CTA on its expert's GEMM; sm_80+";
  }
  Accuracy accuracy() const override { return bf16_mma_accuracy(); }
  OperandEncoding encoding() const override { return OperandEncoding::fp4; }
  Verdict availability() const override {
    if (const Verdict sm = require_sm(80, "needs sm_80+ (bf16 mma.sync)"); !sm) return sm;
    return grouped_kernel_image_present();
  }
  Verdict can_implement(const GroupedProblem& problem) const override {
    try {
      problem.validate();
    } catch (const InvalidArgument& e) {
      return Verdict::no(e.what());
    }
    if (problem.experts() > kMaxGroupedExperts)
      return Verdict::no(fmt::format("{} experts: the grouped kernel takes at most {} (grid z)",
                                     problem.experts(), kMaxGroupedExperts));
    // The decode kernel's rules on one expert's GEMM (its K limit: A's rows are staged at 32-bit
    // offsets), at the M of a round.
    GemmProblem expert = problem.expert_problem(0);
    expert.shape.m = std::clamp<std::int64_t>(problem.max_tokens(), 1, kDecodeMaxM);
    return decode_can_implement(expert);
  }
  std::unique_ptr<GemmRun> prepare(const GroupedOperands& operands) const override {
    return prepare_grouped_kernel(operands);
  }
};

}  // namespace

std::unique_ptr<GemmRun> prepare_grouped_kernel(const GroupedOperands& operands,
                                                const GroupedRunOptions& options) {
  operands.validate();
  const Verdict available = make_grouped_backend()->availability();
  if (!available) throw Error(fmt::format("cuda-grouped is not available: {}", available.reason));
  return std::make_unique<GroupedKernelRun>(operands, options);
}

std::unique_ptr<GroupedBackend> make_grouped_backend() { return std::make_unique<GroupedKernelBackend>(); }

}  // namespace fp4gemm::cuda
