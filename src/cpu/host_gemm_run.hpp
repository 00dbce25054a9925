#pragma once
// HostGemmRun: the GemmRun of every CPU backend. Holds the operands and an fp32 output buffer;
// run() calls the backend's compute function synchronously.
#include <algorithm>
#include <functional>

#include "fp4gemm/backend.hpp"
#include "fp4gemm/host_device.hpp"

namespace fp4gemm::cpu {

class HostGemmRun final : public GemmRun {
 public:
  using Compute = std::function<void(const GemmOperands&, std::vector<float>& out)>;
  HostGemmRun(GemmOperands operands, Compute compute)
      : operands_(std::move(operands)),
        compute_(std::move(compute)),
        out_(std::size_t(operands_.problem.shape.m * operands_.problem.shape.n)) {}
  void run() override { compute_(operands_, out_); }
  void synchronize() override {}
  void poison_output() override {
    std::fill(out_.begin(), out_.end(), float_from_bits(0xFFFFFFFFu));
  }
  std::vector<float> output() override { return out_; }

 private:
  GemmOperands operands_;
  Compute compute_;
  std::vector<float> out_;
};

}  // namespace fp4gemm::cpu
