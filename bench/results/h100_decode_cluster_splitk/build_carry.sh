#!/usr/bin/env bash
# Builds the binaries that run1.sh .. run3.sh carry (RUN.md), on this machine (sm_90a only):
#   .carry/v11   this checkout: fp4gemm, decode_stream_probe and the four kernel test programs;
#   .carry/base  commit e31eea3's fp4gemm (stop 19's kernels), in a temporary git worktree;
#   .carry/w8    this checkout with 8 warps per CTA (decode::kWarps): fp4gemm, decode_gemm_test.
# Each as xz files. Run from the repository root; about 12 minutes on 2 cores when build-h200 is
# current (measured in stop 21: 7.1, 1.8 and 2.9 MB of xz files).
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
configure() { cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFP4GEMM_CUDA_ARCHITECTURES=90a-real > /dev/null; }
pack_into() {  # pack_into CARRY_DIR BUILD_DIR PATH...
  local carry=$1 build=$2
  shift 2
  mkdir -p "$carry"
  for f in "$@"; do xz -T0 -c "$build/$f" > "$carry/$(basename "$f").xz"; done
}
tests=(tests/cuda/decode_gemm_test tests/cuda/grouped_gemm_test tests/cuda/wgmma_gemm_test tests/cuda/mma_gemm_test)

configure . build-h200
cmake --build build-h200 --target fp4gemm_cli decode_stream_probe "${tests[@]##*/}"
pack_into .carry/v11 build-h200 fp4gemm bench/decode_stream_probe "${tests[@]}"

worktree=$(mktemp -d)
trap 'git worktree remove --force "$worktree/src" 2>/dev/null || true; rm -rf "$worktree"' EXIT
git worktree add -q --detach "$worktree/src" e31eea3
configure "$worktree/src" "$worktree/build"
cmake --build "$worktree/build" --target fp4gemm_cli
pack_into .carry/base "$worktree/build" fp4gemm
git worktree remove --force "$worktree/src"

git worktree add -q --detach "$worktree/src" HEAD
sed -i 's/inline constexpr int kWarps = 4;/inline constexpr int kWarps = 8;/' "$worktree/src/src/cuda/decode_gemm.cuh"
grep -q 'kWarps = 8;' "$worktree/src/src/cuda/decode_gemm.cuh"
rm -rf "$worktree/build"
configure "$worktree/src" "$worktree/build"
cmake --build "$worktree/build" --target fp4gemm_cli decode_gemm_test
pack_into .carry/w8 "$worktree/build" fp4gemm tests/cuda/decode_gemm_test
du -sh .carry/v11 .carry/base .carry/w8
