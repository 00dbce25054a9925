#!/usr/bin/env bash
# wgmma2 call 1: tests (smoke first: a hang stops the call), main bench, check, other shapes.
B=/tmp/wgbin; mkdir -p $B; tar xJf .carry/wg/bin.tar.xz -C $B
L=$OUT; SECONDS=0
export FP4GEMM_CACHE_DIR=$PWD/.carry/wg/cache
s() { grep -E '^\[  (PASSED|FAILED) |^\[  FAILED  \]' $1 | head -12 | tr '\n' ' '; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 30 $B/tests/cuda/wgmma_gemm_test --gtest_filter='AllCombos/WgmmaGemm.RandomOperands*/0' > $L/smoke.log 2>&1; rc=$?; echo "smoke rc=$rc ${SECONDS}s $(s $L/smoke.log)"
[ $rc = 124 ] && { tail -5 $L/smoke.log; exit 1; }
timeout 100 $B/tests/cuda/wgmma_gemm_test > $L/wgmma_gemm_test.log 2>&1; echo "test rc=$? ${SECONDS}s $(s $L/wgmma_gemm_test.log)"
timeout 60 $B/fp4gemm bench --backend cuda-wgmma,cublas-bf16,cublaslt-fp8 -m 128,512,1024,4096 -n 6144 -k 6144 --mode w4a16 --max-seconds 0.15 --json $L/main.json > $L/main.txt 2>&1; echo "bench rc=$? ${SECONDS}s"; cat $L/main.txt | cut -c1-150
timeout 45 $B/fp4gemm check --backend cuda-wgmma > $L/check.txt 2>&1; echo "check rc=$? ${SECONDS}s"; grep -ciE "fail" $L/check.txt; tail -3 $L/check.txt
[ $SECONDS -gt 200 ] && exit 0
timeout 50 $B/fp4gemm bench --backend cuda-wgmma,cublas-bf16 -m 128,512,1024,4096 -n 4096,16384 -k 6144 --mode w4a16 --max-seconds 0.15 --json $L/nk_4096_16384.json > $L/nk_4096_16384.txt 2>&1; echo "bench2 rc=$? ${SECONDS}s"; cat $L/nk_4096_16384.txt | cut -c1-150
[ $SECONDS -gt 230 ] && exit 0
timeout 30 $B/fp4gemm bench --backend cuda-wgmma,cublas-bf16 -m 128,512,1024,4096 -n 6144 -k 2048 --mode w4a16 --max-seconds 0.15 --json $L/nk_6144_2048.json > $L/nk_6144_2048.txt 2>&1; echo "bench3 rc=$? ${SECONDS}s"; cat $L/nk_6144_2048.txt | cut -c1-150
