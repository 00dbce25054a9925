#pragma once
// The heuristic table of the `auto` backend (DeepGEMM style): for a GPU's architecture and a
// problem's shape, which of our kernels to try first, then a fixed fallback order. Plain C++ (no
// CUDA call), so every row, boundary and fallback is tested without a GPU
// (tests/cuda/dispatch_table_test.cpp). The rows themselves are in dispatch_table.cpp.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fp4gemm/backend.hpp"
#include "fp4gemm/gemm.hpp"

namespace fp4gemm::cuda {

// `sm` of the rows that serve every architecture without rows of its own.
inline constexpr int kOtherSm = 0;
// A bound that takes every extent.
inline constexpr std::int64_t kAnyExtent = std::numeric_limits<std::int64_t>::max();

// One row: an architecture (10 * major + minor, or kOtherSm) and the shapes it takes,
// M <= m_max, N <= n_max and K <= k_max, among those the rows above it of the same architecture
// left (the first row that takes a shape wins); the backend to try first; and the measurement
// that put it there (printed by `bench --explain`).
struct DispatchRow {
  int sm = kOtherSm;
  std::int64_t m_max = kAnyExtent;
  std::int64_t n_max = kAnyExtent;
  std::int64_t k_max = kAnyExtent;
  std::string_view backend;
  std::string_view basis;
  constexpr bool takes_every_shape() const {
    return m_max == kAnyExtent && n_max == kAnyExtent && k_max == kAnyExtent;
  }
};

// The candidates, in fallback order: the table's pick is asked first; if it refuses (not
// available, or can_implement says no), the others are asked in this order until one takes the
// problem (so a refusal by cuda-wgmma at M = 128 lands on cuda-dequant-cublas, not cuda-mma).
inline constexpr std::string_view kFallbackOrder[] = {"cuda-decode", "cuda-dequant-cublas", "cuda-wgmma",
                                                     "cuda-mma"};

// What is wrong with a table, or empty when nothing is: the rows of each architecture are
// contiguous and end with one row that takes every shape (so no shape goes without a row and no
// row is unreachable), a kOtherSm group exists, every backend is one of kFallbackOrder.
constexpr std::string_view table_fault(std::span<const DispatchRow> table) {
  bool other_group = false;
  for (std::size_t i = 0; i < table.size(); ++i) {
    const DispatchRow& row = table[i];
    bool known = false;
    for (std::string_view name : kFallbackOrder) known |= name == row.backend;
    if (!known) return "a row names a backend that is not in kFallbackOrder";
    const bool group_start = i == 0 || table[i - 1].sm != row.sm;
    if (group_start)
      for (std::size_t j = 0; j < i; ++j)
        if (table[j].sm == row.sm) return "the rows of one architecture are not contiguous";
    const bool group_end = i + 1 == table.size() || table[i + 1].sm != row.sm;
    if (group_end != row.takes_every_shape())
      return "an architecture's rows must end with exactly one row that takes every shape";
    other_group |= row.sm == kOtherSm;
  }
  return other_group ? "" : "no rows for the other architectures (sm = kOtherSm)";
}

// The table auto uses (dispatch_table.cpp).
std::span<const DispatchRow> dispatch_table();

// The index of the row for a GPU of `sm` and `shape`: the first row of that architecture taking
// the shape, among the kOtherSm rows when the table has none of `sm`. The table must be free of
// table_fault (InvalidArgument otherwise).
std::size_t dispatch_row(std::span<const DispatchRow> table, int sm, const GemmShape& shape);

// The row as --explain prints it: "sm_90, M 33..256: cuda-wgmma (H100 ...)", or for a GPU of an
// architecture without rows "sm_89 (default rows), M 1..32: cuda-decode (...)".
std::string describe_row(std::span<const DispatchRow> table, std::size_t row, int sm);

// The order in which the candidates are asked when a row picks `pick`: `pick`, then the others of
// kFallbackOrder in their order.
std::vector<std::string_view> dispatch_candidates(std::string_view pick);

// Whether a candidate backend takes the problem (availability, then can_implement).
using CandidateCheck = std::function<Verdict(std::string_view backend)>;

// The row's backend, then the other candidates in kFallbackOrder, each asked through `check` until
// one says yes: the Dispatch names the row, the refusals in order and the chosen backend (empty when
// every candidate refused).
Dispatch resolve_dispatch(std::span<const DispatchRow> table, int sm, const GemmShape& shape,
                          const CandidateCheck& check);

}  // namespace fp4gemm::cuda
