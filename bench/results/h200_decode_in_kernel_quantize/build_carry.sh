#!/usr/bin/env bash
# Builds what run1.sh and run2.sh carry, on this machine (sm_90a only): .carry/v13 holds this
# checkout's fp4gemm and the decode, GPU-quantizer and grouped test programs as xz files. Run from
# the repository root.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
cmake -S . -B build-h200 -G Ninja -DCMAKE_BUILD_TYPE=Release -DFP4GEMM_CUDA_ARCHITECTURES=90a-real > /dev/null
tests=(tests/cuda/decode_gemm_test tests/cuda/gpu_quantize_test tests/cuda/grouped_gemm_test)
cmake --build build-h200 --target fp4gemm_cli "${tests[@]##*/}"
rm -rf .carry/v13
mkdir -p .carry/v13
for f in fp4gemm "${tests[@]}"; do xz -T0 -c "build-h200/$f" > ".carry/v13/$(basename "$f").xz"; done
du -sh .carry/v13
