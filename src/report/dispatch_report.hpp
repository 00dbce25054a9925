#pragma once
// What `bench --explain` prints and what bench JSON/CSV record about a dispatching backend's
// (auto's) choice: the kernel, the table row, and every candidate refused with its reason.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/bench_runner.hpp"

namespace fp4gemm {

// {"kernel": "cuda-wgmma", "rule": "sm_90, M >= 256: cuda-dequant-cublas (...)",
//  "refused": [{"backend": "cuda-dequant-cublas", "reason": "f16 output: ..."}]}; kernel "" when all
// refused.
nlohmann::ordered_json dispatch_fields(const Dispatch& dispatch);

// For each row that carries a Dispatch, in order:
//   auto nvfp4 w4a16 1024x6144x48 -> f16: cuda-mma
//     table row: sm_90, M >= 256: cuda-dequant-cublas (H200 ...)
//     refused cuda-dequant-cublas: f16 output: ...
//     refused cuda-wgmma: K = 48: ...
// Empty when no row has one.
std::string explain_dispatch(const std::vector<BenchRow>& rows);

}  // namespace fp4gemm
