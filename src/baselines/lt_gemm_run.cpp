#include "baselines/lt_gemm_run.hpp"

#include <fmt/format.h>

namespace fp4gemm::baselines {

LtGemmRun::LtGemmRun(const GemmProblem& problem, const LtMatmulSpec& spec, LtOperand weights,
                     LtOperand activations, float alpha)
    : cuda::DeviceGemmRun(problem),
      weights_(std::move(weights)),
      activations_(std::move(activations)),
      alpha_(alpha),
      handle_(make_lt_handle()),
      plan_(spec) {
  plan_.set_scale_pointers(weights_.scales.get(), activations_.scales.get());
  const auto best = plan_.best_algorithm(handle_.get());
  if (!best) throw Error(fmt::format("cuBLASLt has no algorithm for {} on this GPU", problem.describe()));
  algo_ = best->algo;
  workspace_ = cuda::DeviceBuffer<std::uint8_t>(best->workspaceSize);
}

void LtGemmRun::run() {
  // C is passed as D (Ctype = Dtype, which cuBLASLt allows for FP8 and FP4 with every output
  // dtype fp4gemm has); with beta = 0 it is not read.
  FP4GEMM_CUBLAS_CHECK(cublasLtMatmul(handle_.get(), plan_.desc(), &alpha_, weights_.data.get(),
                                      plan_.weight_layout(), activations_.data.get(),
                                      plan_.activation_layout(), &beta_, output_ptr(),
                                      plan_.out_layout(), output_ptr(), plan_.out_layout(), &algo_,
                                      workspace_.get(), workspace_.size(), stream()));
}

}  // namespace fp4gemm::baselines
