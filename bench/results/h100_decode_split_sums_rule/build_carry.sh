#!/usr/bin/env bash
# Builds what run.sh carries, on this machine (sm_90a only): .carry/v12 holds this checkout's
# fp4gemm, decode_gemm_test and grouped_gemm_test as xz files. Run from the repository root.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
cmake -S . -B build-h200 -G Ninja -DCMAKE_BUILD_TYPE=Release -DFP4GEMM_CUDA_ARCHITECTURES=90a-real > /dev/null
cmake --build build-h200 --target fp4gemm_cli decode_gemm_test grouped_gemm_test
rm -rf .carry/v12
mkdir -p .carry/v12
for f in fp4gemm tests/cuda/decode_gemm_test tests/cuda/grouped_gemm_test; do
  xz -T0 -c "build-h200/$f" > ".carry/v12/$(basename "$f").xz"
done
du -sh .carry/v12
