#pragma once
// What `bench --explain` prints and what bench JSON/CSV record about a dispatching backend's
// (auto's) choice: the kernel, the table row, and every candidate refused with its reason.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/bench_runner.hpp"

namespace fp4gemm {

// {"kernel": "cuda-mma", "rule": "sm_90, M >= 512: cuda-wgmma (...)",
//  "refused": [{"backend": "cuda-wgmma", "reason": "K = 48: ..."}]}; kernel "" when all refused.
nlohmann::ordered_json dispatch_fields(const Dispatch& dispatch);

// For each row that carries a Dispatch, in order:
//   auto nvfp4 w4a16 256x6144x48 -> bf16: cuda-mma
//     table row: sm_90, M >= 512: cuda-wgmma (H200 ...)
//     refused cuda-wgmma: K = 48: ...
// Empty when no row has one.
std::string explain_dispatch(const std::vector<BenchRow>& rows);

}  // namespace fp4gemm
