#!/usr/bin/env bash
# Builds what run.sh carries, on this machine (sm_90a only), as xz files (run from the repository
# root): .carry/s3, this checkout's fp4gemm, decode_gemm_test and grouped_gemm_test. run.sh also
# carries ../decode_batched_staging's .carry/base (commit 99bd833's fp4gemm) and .carry/s2 (the
# batched staging with the CTA-count slice rule), from its build_carry.sh.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
scripts/build_carry.sh .carry/s3 fp4gemm_cli,decode_gemm_test,grouped_gemm_test \
  fp4gemm tests/cuda/decode_gemm_test tests/cuda/grouped_gemm_test
