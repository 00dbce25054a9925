// cublas-bf16-loop: the grouped (MoE) GEMM as a Hopper user runs it without a grouped kernel:
// one cublas-bf16 call per expert that received tokens, back to back on one stream (the host
// knows the counts). Operands are dequantized on the host in prepare() to exact bf16 block
// values (fp16 for f16 output), as cublas-bf16 does; all experts' weights are resident.
#include <fmt/format.h>

#include "baselines/baseline_factories.hpp"
#include "baselines/cublas_16bit.hpp"
#include "baselines/cublas_conventions.hpp"  // kWorkspaceBytes
#include "baselines/operand_values.hpp"
#include "cuda/device_gemm_run.hpp"
#include "cuda/gpu_requirement.hpp"

namespace fp4gemm::baselines {
namespace {

class CublasLoopRun final : public cuda::DeviceGemmRun {
 public:
  explicit CublasLoopRun(const GroupedOperands& ops)
      : cuda::DeviceGemmRun(ops.problem.dense_problem()),
        grouped_(ops.problem),
        operand_dtype_(cublas_operand_dtype(grouped_.dense_problem())),
        workspace_(kWorkspaceBytes),
        handle_(make_exact_cublas_handle(stream(), workspace_)) {
    std::vector<float> a_hat, b_hat;  // T_total x K, E x N x K
    a_hat.reserve(std::size_t(grouped_.total_tokens() * grouped_.k));
    b_hat.reserve(std::size_t(grouped_.experts() * grouped_.n * grouped_.k));
    for (const GemmOperands& expert : ops.experts) {
      const std::vector<float> b = weight_values(expert);
      b_hat.insert(b_hat.end(), b.begin(), b.end());
      alphas_.push_back(expert.alpha_total());
      if (expert.problem.shape.m == 0) continue;
      const std::vector<float> a = activation_values(expert);
      a_hat.insert(a_hat.end(), a.begin(), a.end());
    }
    a_ = cuda::DeviceBuffer<std::uint16_t>(exact_16bit(a_hat, operand_dtype_, "A_hat"));
    b_ = cuda::DeviceBuffer<std::uint16_t>(exact_16bit(b_hat, operand_dtype_, "B_hat"));
  }

  // The handle follows the run's stream (a shared harness stream too), with its own workspace.
  void stream_changed() override { bind_cublas_stream(handle_.get(), stream(), workspace_); }

  void run() override {
    const std::int64_t n = grouped_.n, k = grouped_.k;
    const std::vector<std::int64_t> offsets = grouped_.offsets();
    auto* out = static_cast<std::uint8_t*>(output_ptr());
    for (std::int64_t e = 0; e < grouped_.experts(); ++e) {
      const std::int64_t m = grouped_.tokens[std::size_t(e)], row = offsets[std::size_t(e)];
      if (m == 0) continue;
      cublas_gemm_16bit(handle_.get(), {m, n, k}, operand_dtype_, a_.get() + row * k,
                        b_.get() + e * n * k, alphas_[std::size_t(e)],
                        out + row * n * dtype_bytes(grouped_.out_dtype), grouped_.out_dtype);
    }
  }

 private:
  GroupedProblem grouped_;
  DType operand_dtype_;
  std::vector<float> alphas_;
  cuda::DeviceBuffer<std::uint16_t> a_, b_;
  cuda::DeviceBuffer<std::uint8_t> workspace_;  // before handle_, which uses it
  CublasHandle handle_;
};

class CublasLoopBackend final : public GroupedBackend {
 public:
  std::string_view name() const override { return "cublas-bf16-loop"; }
  std::string_view summary() const override {
    return "one cublas-bf16 call per expert with tokens, back to back on one stream (host "
           "counts): the grouped GEMM without a grouped kernel";
  }
  Accuracy accuracy() const override { return cublas_16bit_accuracy(); }
  OperandEncoding encoding() const override { return OperandEncoding::bf16; }
  Verdict availability() const override { return cuda::require_sm(80, "needs sm_80+ (bf16 tensor cores)"); }
  Verdict can_implement(const GroupedProblem& p) const override {
    return cublas_16bit_can_implement(p.dense_problem());
  }
  std::unique_ptr<GemmRun> prepare(const GroupedOperands& ops) const override {
    ops.validate();
    const Verdict v = can_implement(ops.problem);
    require(v.ok, "cublas-bf16-loop cannot run {}: {}", ops.problem.describe(), v.reason);
    return std::make_unique<CublasLoopRun>(ops);
  }
};

}  // namespace

std::unique_ptr<GroupedBackend> make_cublas_bf16_loop_backend() {
  return std::make_unique<CublasLoopBackend>();
}

}  // namespace fp4gemm::baselines
