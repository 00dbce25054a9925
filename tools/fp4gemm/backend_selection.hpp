#pragma once
// Which backends a verb runs: the user's --backend list, or by default every available backend
// on the best device present (the GPU when one is usable, else the CPU), without the slow
// cpu-reference (it is the oracle that check compares against) and without the backends that
// run only when named (Backend::only_when_named: cuda-fp8-lossy).
#include <string>
#include <vector>

#include "fp4gemm/backend.hpp"

namespace fp4gemm::cli {

enum class DefaultBackends {
  best_device,   // bench: the backends of the best device present
  every_device,  // check: every available backend
};
// names: empty = the default; "all" = every available backend; otherwise a list of names, each
// of which must exist (InvalidArgument) and be available (InvalidArgument with the reason).
std::vector<const Backend*> select_backends(const std::vector<std::string>& names,
                                            DefaultBackends default_set);

// One line per chosen backend that runs only when named (the lossy fast paths), "note: <name>:
// <summary>\n", so that bench and check output say what such a backend changes; "" otherwise.
std::string describe_named_only(const std::vector<const Backend*>& backends);

// "NVIDIA H200 (sm_90, 132 SMs)" when a GPU is present, else the CPU model and cores.
std::string describe_best_device();

}  // namespace fp4gemm::cli
