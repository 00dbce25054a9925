#pragma once
// The backend interface: every GEMM implementation (CPU, CUDA kernels, cuBLAS baselines) is a
// Backend. A backend says whether it exists here and why not (availability), whether it can
// take a given problem and why not (can_implement), and prepares operands into a GemmRun whose
// run() is the region a benchmark times.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fp4gemm/error.hpp"
#include "fp4gemm/gemm.hpp"

namespace fp4gemm {

enum class DeviceKind { cpu, cuda };

// Answer to "can this be done here?": ok, or the reason it cannot.
struct Verdict {
  bool ok = true;
  std::string reason;
  static Verdict yes() { return {}; }
  static Verdict no(std::string why) { return {false, std::move(why)}; }
  explicit operator bool() const { return ok; }
};

// validate_shape's rules as a Verdict (its message the reason): the first test of a GEMM
// backend's can_implement.
inline Verdict shape_verdict(const GemmShape& shape, Fp4Format format) {
  try {
    validate_shape(shape, format);
  } catch (const InvalidArgument& e) {
    return Verdict::no(e.what());
  }
  return Verdict::yes();
}

// How a backend's result relates to the exact product (check derives its tolerance from this):
// |D - R| <= (2 * input_relative_error + K * accumulation_unit) * S + output rounding
// (K * accumulation_unit as accumulation_block below says when the sums are promoted in blocks),
// where S = |alpha| sum |A_hat B_hat| (ReferenceResult::abs_sum).
struct Accuracy {
  bool exact = true;                 // false: the backend changes the operands (lossy)
  double input_relative_error = 0;   // per operand, e.g. 2^-4 for E4M3 re-quantization
  double accumulation_unit = 0;      // unit roundoff of one accumulation step
  std::string note;                  // one line for reports, e.g. "exact: bf16 MMA, fp32 accumulate"
  // 0: every accumulation step has unit accumulation_unit (the K u term). B > 0: sums of at most
  // B products are formed at accumulation_unit (e.g. FP8 tensor cores), then promoted into an
  // fp32 sum, so the term is min(K, B) u + ceil(K / B) 2^-24 (verify.hpp).
  int accumulation_block = 0;
};

// poison_output() fills D with all-one bytes: NaN in every output dtype, and a NaN that no
// arithmetic produces, so that check can tell "never written" from "computed NaN".
bool is_poison(float decoded_output_value);

// How a backend holds the operands in device memory: what its byte count (GB/s, roofline) is
// made of. fp4: packed E2M1 + block scales; bf16/fp8: one dequantized element per 2 / 1 bytes.
enum class OperandEncoding { fp4, bf16, fp8 };

// Where a backend's multiply-accumulates run, which picks the compute peak of its roofline:
// CPU cores (no datasheet ceiling), or GPU tensor cores taking BF16, FP8 or FP4 inputs.
enum class ComputePath { cpu, bf16_tensor, fp8_tensor, fp4_tensor };

// Which backend a dispatching backend (`auto`) runs a problem on, and why: the rule that named
// its first candidate, then each candidate that refused (fallback order) with its reason.
struct Refusal {
  std::string backend;
  std::string reason;
};
struct Dispatch {
  std::string rule;              // e.g. "sm_90, M 1..32: cuda-decode (H200: ...)"
  std::vector<Refusal> refused;  // in the order they were asked
  std::string chosen;            // the backend that runs it; empty when every candidate refused
  // "cuda-wgmma: K = 48: ...; cuda-mma: ..." (empty without refusals)
  std::string describe_refusals() const;
};

// A problem prepared on a backend: operands converted and resident where the backend computes.
class GemmRun {
 public:
  virtual ~GemmRun() = default;
  virtual void run() = 0;                    // enqueue one GEMM (the timed region)
  virtual void synchronize() = 0;            // wait until every enqueued run has finished
  virtual void poison_output() = 0;          // fill D with NaN bit patterns
  virtual std::vector<float> output() = 0;   // D (M x N), decoded to fp32, after synchronize()
  // How this run computes its problem (the kernel family's launch plan: tile, K-splits, grid),
  // for reports; empty where the backend has nothing to tell (libraries, CPU backends).
  virtual std::string plan() const { return {}; }
  // The cudaStream_t that run() enqueues on (GPU backends), nullptr for host backends; the
  // timing harness records its events there.
  virtual void* cuda_stream() { return nullptr; }
  // GPU runs: from now on enqueue everything (run, poison_output, synchronize, output) on
  // `stream`, a cudaStream_t the caller owns and keeps alive while bound, instead of the run's
  // own; nullptr goes back to the own stream. This is how several runs (the operand sets of a
  // cold measurement) are ordered on one stream and captured into one CUDA graph. The caller
  // waits for the work it enqueued through the bound stream before unbinding. Host runs have no
  // stream: InvalidArgument.
  virtual void bind_cuda_stream(void* stream);
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view summary() const = 0;  // one line: what it is
  virtual DeviceKind device() const = 0;
  virtual Accuracy accuracy() const = 0;
  virtual Verdict availability() const = 0;      // present and usable on this machine?
  virtual Verdict can_implement(const GemmProblem& problem) const = 0;
  virtual OperandEncoding encoding() const { return OperandEncoding::fp4; }
  // Default: CPU backends compute on the CPU; GPU backends on FP8 tensor cores when their
  // operands are FP8, else on BF16 tensor cores (every kernel of src/cuda dequantizes FP4 to
  // BF16 in registers). A backend on FP4 tensor cores overrides it.
  virtual ComputePath compute_path() const {
    if (device() == DeviceKind::cpu) return ComputePath::cpu;
    return encoding() == OperandEncoding::fp8 ? ComputePath::fp8_tensor : ComputePath::bf16_tensor;
  }
  virtual std::unique_ptr<GemmRun> prepare(const GemmOperands& operands) const = 0;
  // True for backends that run only when named (or with "all"): lossy fast paths of fp4gemm's
  // own (cuda-fp8-lossy), which neither `auto` nor a default backend list may pick.
  virtual bool only_when_named() const { return false; }
  // Backends that hand each problem to another backend (auto) say which one and why; the rest
  // run problems themselves (nullopt).
  virtual std::optional<Dispatch> dispatch(const GemmProblem&) const { return std::nullopt; }
};

// Every backend compiled into this build, available or not, in a stable order.
const std::vector<std::unique_ptr<Backend>>& all_backends();
// The backend called `name`; InvalidArgument listing the known names otherwise.
const Backend& find_backend(std::string_view name);

}  // namespace fp4gemm
