#!/usr/bin/env bash
# The call that measures cuda-wgmma's plan alternatives (src/cuda/notes_wgmma.md, "Open"): each
# token tile and K-split count forced by FP4GEMM_WGMMA_BM / FP4GEMM_WGMMA_SPLITS, each in its own
# process beside cublas-bf16 (the same-process reference), on the shapes where stop 38's grid put
# the cost model wrong, and on two where it was right (controls).
# Build (the tree with the switches, stop 38's final commit or later):
#   T=fp4gemm_cli,auto_backend_test,wgmma_gemm_test,fp8_gemm_test
#   F="fp4gemm tests/cuda/auto_backend_test tests/cuda/wgmma_gemm_test tests/cuda/fp8_gemm_test"
#   scripts/build_carry.sh .carry/land $T $F
# Call: run(command="bash bench/results/wgmma_choose/run.sh", carry=[".carry/land"]);
# files in $OUT/wgmma_choose.tgz. About 150 s.
source scripts/device_prelude.sh wgmma_choose .carry/land || exit 1
gtests wgmma_gemm_test:60
G="--mode w4a16 --backend cuda-wgmma,cublas-bf16 --max-seconds 0.03 --ceilings datasheet"
# label  M  N  K  BM  SPLITS
while read -r label m n k bm splits; do
  FP4GEMM_WGMMA_BM=$bm FP4GEMM_WGMMA_SPLITS=$splits step "${label}_bm${bm}_s${splits}" 40 \
    "$B/fp4gemm" bench -m "$m" -n "$n" -k "$k" $G --json "$O/${label}_bm${bm}_s${splits}.json"
done <<'CASES'
m8192_16384 8192 16384 6144 auto auto
m8192_16384 8192 16384 6144 256 auto
m4096_16384 4096 16384 6144 auto auto
m4096_16384 4096 16384 6144 128 auto
m512_6144 512 6144 6144 auto auto
m512_6144 512 6144 6144 256 auto
m512_6144 512 6144 6144 128 1
m512_6144 512 6144 6144 128 3
m256_6144 256 6144 6144 auto auto
m256_6144 256 6144 6144 256 auto
m256_6144 256 6144 6144 128 1
m256_6144 256 6144 6144 128 2
m1024_6144 1024 6144 6144 auto auto
m1024_6144 1024 6144 6144 256 auto
m512_2048 512 6144 2048 auto auto
m512_2048 512 6144 2048 256 auto
m512_2048 512 6144 2048 128 1
m1024_2048 1024 6144 2048 auto auto
m1024_2048 1024 6144 2048 256 auto
m4096_2048 4096 6144 2048 auto auto
m4096_2048 4096 6144 2048 128 auto
CASES
