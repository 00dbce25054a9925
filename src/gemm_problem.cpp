// Mode names, shape rules and operand validation shared by every backend.
#include <fmt/format.h>

#include "fp4gemm/error.hpp"
#include "fp4gemm/gemm.hpp"

namespace fp4gemm {

std::string_view to_string(Mode m) { return m == Mode::w4a4 ? "w4a4" : "w4a16"; }

Mode parse_mode(std::string_view text, std::string_view argument) {
  if (text == "w4a4") return Mode::w4a4;
  if (text == "w4a16") return Mode::w4a16;
  throw InvalidArgument(fmt::format("{} = '{}': use w4a4 or w4a16", argument, text));
}

std::string GemmProblem::describe() const {
  return fmt::format("{} {} {}x{}x{} -> {}", to_string(format), to_string(mode), shape.m, shape.n,
                     shape.k, to_string(out_dtype));
}

void validate_shape(const GemmShape& s, Fp4Format format) {
  require(s.m >= 1, "M = {} must be at least 1", s.m);
  require(s.n >= 1, "N = {} must be at least 1", s.n);
  require_block_multiple(s.k, format);
}

float GemmOperands::alpha_total() const {
  const float a_scale = problem.mode == Mode::w4a4 ? a_fp4.scale_2 : 1.0f;
  return alpha * a_scale * b.scale_2;
}

void GemmOperands::validate_weights() const {
  const GemmShape& s = problem.shape;
  b.validate();
  require(b.format == problem.format, "B is {} but the problem is {}", to_string(b.format),
          to_string(problem.format));
  require(b.rows == s.n && b.cols == s.k, "B is {} x {}; the problem needs N x K = {} x {}", b.rows,
          b.cols, s.n, s.k);
  require(b.scale_layout == problem.scale_layout, "B scales are {} but the problem says {}",
          to_string(b.scale_layout), to_string(problem.scale_layout));
}

void GemmOperands::validate() const {
  const GemmShape& s = problem.shape;
  validate_shape(s, problem.format);
  validate_weights();
  if (problem.mode == Mode::w4a4) {
    a_fp4.validate();
    require(a_fp4.format == problem.format, "A is {} but the problem is {}", to_string(a_fp4.format),
            to_string(problem.format));
    require(a_fp4.rows == s.m && a_fp4.cols == s.k, "A is {} x {}; the problem needs M x K = {} x {}",
            a_fp4.rows, a_fp4.cols, s.m, s.k);
    require(a_fp4.scale_layout == problem.scale_layout, "A scales are {} but the problem says {}",
            to_string(a_fp4.scale_layout), to_string(problem.scale_layout));
    // The optional bf16 source of A (the GPU families requantize it in every call) is A itself.
    if (a_bf16.rows != 0 || a_bf16.cols != 0 || !a_bf16.half.empty() || !a_bf16.f32.empty()) {
      require(a_bf16.dtype == DType::bf16, "w4a4's bf16 source of A is {}, not bf16", to_string(a_bf16.dtype));
      require(a_bf16.rows == s.m && a_bf16.cols == s.k &&
                  a_bf16.half.size() == std::size_t(s.m) * std::size_t(s.k),
              "w4a4's bf16 source of A is {} x {} ({} values); the problem needs M x K = {} x {}", a_bf16.rows,
              a_bf16.cols, a_bf16.half.size(), s.m, s.k);
    }
  } else {
    require(a_bf16.dtype == DType::bf16, "w4a16 needs A in bf16, got {}", to_string(a_bf16.dtype));
    require(a_bf16.rows == s.m && a_bf16.cols == s.k, "A is {} x {}; the problem needs M x K = {} x {}",
            a_bf16.rows, a_bf16.cols, s.m, s.k);
  }
}

}  // namespace fp4gemm
