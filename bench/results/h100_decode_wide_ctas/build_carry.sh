#!/usr/bin/env bash
# Builds what run.sh carries, on this machine (sm_90a only), as xz files (run from the repository
# root, with commit 8532ee8's fp4gemm already in .carry/base: ../wgmma_v4_consumer_convert/build_carry.sh):
#   .carry/w8   this checkout's fp4gemm, decode_gemm_test and grouped_gemm_test;
#   .carry/w8r  this checkout's fp4gemm with the reciprocal E2M1 codes applied (the quantizer files
#               of ../wgmma_v4_consumer_convert/v4_and_reciprocal.patch), then reverted.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
pack_into() {  # pack_into CARRY_DIR PATH... (paths under build-h200)
  local carry=$1
  shift
  rm -rf "$carry" && mkdir -p "$carry"
  for f in "$@"; do xz -T0 -c "build-h200/$f" > "$carry/$(basename "$f").xz"; done
}
cmake -S . -B build-h200 -G Ninja -DCMAKE_BUILD_TYPE=Release -DFP4GEMM_CUDA_ARCHITECTURES=90a-real > /dev/null
cmake --build build-h200 --target fp4gemm_cli decode_gemm_test grouped_gemm_test
pack_into .carry/w8 fp4gemm tests/cuda/decode_gemm_test tests/cuda/grouped_gemm_test

reciprocal=(bench/results/wgmma_v4_consumer_convert/v4_and_reciprocal.patch
            --include=src/cuda/quantize_lane.cuh --include=src/cuda/quantize_kernel.cuh
            --include=src/format/quantize_rules.hpp)
git apply "${reciprocal[@]}"
trap 'git apply -R "${reciprocal[@]}"' EXIT
cmake --build build-h200 --target fp4gemm_cli
pack_into .carry/w8r fp4gemm
du -sh .carry/w8 .carry/w8r
