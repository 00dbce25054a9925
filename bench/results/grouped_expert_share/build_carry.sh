#!/usr/bin/env bash
# Builds what run.sh carries, on this machine (sm_90a only): .carry/share holds fp4gemm_d1,
# fp4gemm_d2, fp4gemm_d4 (this checkout) and fp4gemm_d8 as xz files, this checkout's fp4gemm with
# cuda-grouped's kExpertShareDivisor (src/cuda/grouped_gemm.cu) set to 1, 2, 4 and 8: the K-splits
# of a launch planned as if experts / divisor experts receive tokens. Builds in build-h200 one
# after the other (only grouped_gemm.cu recompiles) and restores the file. Run from the
# repository root.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
file=src/cuda/grouped_gemm.cu
git diff --quiet -- "$file" || { echo "$file has uncommitted changes" >&2; exit 1; }
trap 'git checkout -- "$file"' EXIT
cmake -S . -B build-h200 -G Ninja -DCMAKE_BUILD_TYPE=Release -DFP4GEMM_CUDA_ARCHITECTURES=90a-real > /dev/null
rm -rf .carry/share
mkdir -p .carry/share
for d in 1 2 4 8; do
  sed -i "s/constexpr std::int64_t kExpertShareDivisor = [0-9]*;/constexpr std::int64_t kExpertShareDivisor = $d;/" "$file"
  grep -q "kExpertShareDivisor = $d;" "$file"
  cmake --build build-h200 --target fp4gemm_cli
  xz -T0 -c build-h200/fp4gemm > ".carry/share/fp4gemm_d$d.xz"
done
git checkout -- "$file"
cmake --build build-h200 --target fp4gemm_cli
du -sh .carry/share
