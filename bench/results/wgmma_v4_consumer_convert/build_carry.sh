#!/usr/bin/env bash
# Builds what run.sh carries, on this machine (sm_90a only), as xz files:
#   .carry/v15   this checkout with v4_and_reciprocal.patch applied (RUN.md):
#                fp4gemm and the test programs of the kernels that changed;
#   .carry/base  the commit before (8532ee8) fp4gemm, built in the worktree /work/base.
# Run from the repository root after both builds (RUN.md).
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
tests=(tests/cuda/wgmma_gemm_test tests/cuda/gpu_quantize_test tests/cuda/decode_gemm_test tests/cuda/grouped_gemm_test)
cmake --build build-h200 --target fp4gemm_cli "${tests[@]##*/}"
rm -rf .carry/v15 .carry/base && mkdir -p .carry/v15 .carry/base
for f in fp4gemm "${tests[@]}"; do xz -T0 -c "build-h200/$f" > ".carry/v15/$(basename "$f").xz"; done
xz -T0 -c "${BASE_BUILD:-/work/base/build-h200}/fp4gemm" > .carry/base/fp4gemm.xz
du -sh .carry/v15 .carry/base
