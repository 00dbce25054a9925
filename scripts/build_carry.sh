#!/usr/bin/env bash
# Builds CMake targets for the device tool's GPU (sm_90a only) in build-h200/ and packs build
# outputs as xz files into a carry folder (the form scripts/device_prelude.sh unpacks on the GPU
# machine). Run from anywhere in the repository.
#
# Usage: scripts/build_carry.sh DIR TARGETS FILE...
#   DIR      the carry folder (emptied first), e.g. .carry/s4;
#   TARGETS  comma-separated CMake targets, e.g. fp4gemm_cli,decode_gemm_test;
#   FILE     build outputs relative to build-h200/, e.g. fp4gemm tests/cuda/decode_gemm_test.
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: scripts/build_carry.sh DIR TARGETS FILE..." >&2
  exit 2
fi
cd "$(git rev-parse --show-toplevel)"
dir=$1 targets=$2
shift 2
cmake -S . -B build-h200 -G Ninja -DCMAKE_BUILD_TYPE=Release -DFP4GEMM_CUDA_ARCHITECTURES=90a-real > /dev/null
cmake --build build-h200 --target ${targets//,/ }
rm -rf "$dir" && mkdir -p "$dir"
for f in "$@"; do xz -T0 -c "build-h200/$f" > "$dir/$(basename "$f").xz"; done
du -sh "$dir"
