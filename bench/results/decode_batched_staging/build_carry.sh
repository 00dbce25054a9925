#!/usr/bin/env bash
# Builds what run.sh carries, on this machine (sm_90a only), as xz files (run from the repository
# root with this change uncommitted in src/cuda/decode_gemm.*; it is stashed for the base build):
#   .carry/base  commit 99bd833's fp4gemm (the change stashed);
#   .carry/s2    this checkout's fp4gemm, decode_gemm_test and grouped_gemm_test.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
git stash push -- src/cuda/decode_gemm.cu src/cuda/decode_gemm.cuh src/cuda/decode_gemm.hpp
trap 'git stash pop' EXIT
scripts/build_carry.sh .carry/base fp4gemm_cli fp4gemm
git stash pop
trap - EXIT
scripts/build_carry.sh .carry/s2 fp4gemm_cli,decode_gemm_test,grouped_gemm_test \
  fp4gemm tests/cuda/decode_gemm_test tests/cuda/grouped_gemm_test
