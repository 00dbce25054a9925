#!/usr/bin/env bash
# Builds what run.sh carries, on this machine (sm_90a only), as xz files (RUN.md):
#   .carry/v15   this checkout with v4_and_reciprocal.patch applied (the script stops with a
#                message if it is not): fp4gemm and the test programs of the kernels that changed;
#   .carry/base  commit 8532ee8's fp4gemm (the tree before the patch), in a temporary worktree.
# Run from the repository root; ~15 minutes per build on 2 cores from scratch.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
patch=bench/results/wgmma_v4_consumer_convert/v4_and_reciprocal.patch
if ! git apply --reverse --check "$patch" 2>/dev/null; then
  echo "build_carry.sh: apply $patch first (git apply $patch)" >&2
  exit 1
fi
configure() { cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFP4GEMM_CUDA_ARCHITECTURES=90a-real > /dev/null; }
pack_into() {  # pack_into CARRY_DIR BUILD_DIR PATH...
  local carry=$1 build=$2
  shift 2
  rm -rf "$carry" && mkdir -p "$carry"
  for f in "$@"; do xz -T0 -c "$build/$f" > "$carry/$(basename "$f").xz"; done
}
tests=(tests/cuda/wgmma_gemm_test tests/cuda/gpu_quantize_test tests/cuda/decode_gemm_test tests/cuda/grouped_gemm_test)
configure . build-h200
cmake --build build-h200 --target fp4gemm_cli "${tests[@]##*/}"
pack_into .carry/v15 build-h200 fp4gemm "${tests[@]}"

worktree=$(mktemp -d)
trap 'git worktree remove --force "$worktree/src" 2>/dev/null || true; rm -rf "$worktree"' EXIT
git worktree add -q --detach "$worktree/src" 8532ee8
configure "$worktree/src" "$worktree/build"
cmake --build "$worktree/build" --target fp4gemm_cli
pack_into .carry/base "$worktree/build" fp4gemm
du -sh .carry/v15 .carry/base
