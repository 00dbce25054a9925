// The one place that lists every backend compiled into this build.
#include <fmt/format.h>

#include "baselines/baseline_backends.hpp"
#include "cpu/cpu_backends.hpp"
#include "cuda/cuda_backends.hpp"
#include "fp4gemm/backend.hpp"
#include "fp4gemm/error.hpp"
#include "fp4gemm/grouped.hpp"
#include "fp4gemm/host_device.hpp"

namespace fp4gemm {
namespace {

// The entry of `list` called `name`; InvalidArgument listing the known names otherwise.
template <class B>
const B& find_by_name(const std::vector<std::unique_ptr<B>>& list, std::string_view name) {
  std::string known;
  for (const auto& b : list) {
    if (b->name() == name) return *b;
    known += fmt::format("{}{}", known.empty() ? "" : ", ", b->name());
  }
  throw InvalidArgument(fmt::format("--backend = '{}' is not a backend of this build (known: {})",
                                    name, known));
}

}  // namespace

bool is_poison(float value) {
  // All-one bytes decoded from f32, bf16 (0xFFFF << 16) and f16 (sign, exponent 31, mantissa 0x3FF).
  const std::uint32_t bits = float_bits(value);
  return bits == 0xFFFFFFFFu || bits == 0xFFFF0000u || bits == 0xFFFFE000u;
}

std::string Dispatch::describe_refusals() const {
  std::string out;
  for (const Refusal& r : refused) out += fmt::format("{}{}: {}", out.empty() ? "" : "; ", r.backend, r.reason);
  return out;
}

void GemmRun::bind_cuda_stream(void*) {
  throw InvalidArgument("bind_cuda_stream: this run computes on the host and has no CUDA stream");
}

const std::vector<std::unique_ptr<Backend>>& all_backends() {
  static const std::vector<std::unique_ptr<Backend>> backends = [] {
    std::vector<std::unique_ptr<Backend>> list;
    add_cpu_backends(list);
#if defined(FP4GEMM_HAVE_CUDA)
    add_cuda_backends(list);
    add_baseline_backends(list);
#endif
    return list;
  }();
  return backends;
}

const Backend& find_backend(std::string_view name) { return find_by_name(all_backends(), name); }

const std::vector<std::unique_ptr<GroupedBackend>>& all_grouped_backends() {
  static const std::vector<std::unique_ptr<GroupedBackend>> backends = [] {
    std::vector<std::unique_ptr<GroupedBackend>> list;
#if defined(FP4GEMM_HAVE_CUDA)
    add_cuda_grouped_backends(list);
    add_baseline_grouped_backends(list);
#endif
    return list;
  }();
  return backends;
}

const GroupedBackend& find_grouped_backend(std::string_view name) {
  return find_by_name(all_grouped_backends(), name);
}

}  // namespace fp4gemm
