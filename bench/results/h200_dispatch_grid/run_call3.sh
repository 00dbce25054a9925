#!/usr/bin/env bash
# Stop 14 call 3 (~7 min): cuda-dequant-cublas (FP4 -> bf16 on the GPU per call + cuBLAS): its
# tests and check, auto's tests with the new fallback order, then the dispatch grid for auto's
# sm_90 table (M = 33..8192 on 6144 x 6144, our three kernels and cublas-bf16) and the issue-5
# shapes. Carry [".carry/c3"]; outputs in $OUT/c3.tgz (re-packed after every step).
B=/tmp/c3b; O=/tmp/c3o; rm -rf $B $O; mkdir -p $B $O; SECONDS=0
for f in .carry/c3/*.xz; do xz -dc $f > $B/$(basename $f .xz); chmod +x $B/$(basename $f .xz); done
export FP4GEMM_CACHE_DIR=$PWD/.carry/c3/cache
s() { grep -E '^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]' $1 | head -6 | tr '\n' ' '; }
G="--max-seconds 0.1"
pack() { tar czf $OUT/c3.tgz -C $O .; }
nvidia-smi -L > $O/topology.txt 2>&1
for t in dequant_cublas_test auto_backend_test; do timeout 150 $B/$t > $O/$t.log 2>&1; echo "$t rc=$? ${SECONDS}s $(s $O/$t.log)"; done
timeout 90 $B/fp4gemm check --backend cuda-dequant-cublas > $O/check.txt 2>&1; echo "check rc=$? ${SECONDS}s"; tail -4 $O/check.txt; pack
timeout 200 $B/fp4gemm bench -m 33,64,128,256,512,1024,2048,4096,8192 -n 6144 -k 6144 --mode w4a16 --backend cuda-mma,cuda-wgmma,cuda-dequant-cublas,cublas-bf16 $G --json $O/grid_6144.json > $O/grid_6144.txt 2>&1; echo "== grid rc=$? ${SECONDS}s"; grep -E "^ *[0-9]+ " $O/grid_6144.txt | awk '{print $1, $2, $3, $6, $11}'; pack
timeout 150 $B/fp4gemm bench -m 1024,4096 -n 4096,16384 -k 6144 --mode w4a16 --backend cuda-wgmma,cuda-dequant-cublas,cublas-bf16 $G --json $O/prefill_shapes.json > $O/prefill_shapes.txt 2>&1; echo "== shapes rc=$? ${SECONDS}s"; grep -E "^ *[0-9]+ " $O/prefill_shapes.txt | awk '{print $1, $2, $3, $6, $11}'; pack
timeout 60 $B/fp4gemm bench -m 1024,4096 -n 6144 -k 2048 --mode w4a16 --backend cuda-wgmma,cuda-dequant-cublas,cublas-bf16 $G --json $O/prefill_2048.json > $O/prefill_2048.txt 2>&1; echo "== k2048 rc=$? ${SECONDS}s"; grep -E "^ *[0-9]+ " $O/prefill_2048.txt | awk '{print $1, $2, $3, $6, $11}'; pack
timeout 40 $B/fp4gemm bench -m 4096 -n 6144 -k 6144 --mode w4a4 --backend cuda-wgmma,cuda-dequant-cublas,cublas-bf16 $G --json $O/w4a4.json > $O/w4a4.txt 2>&1; echo "== w4a4 rc=$? ${SECONDS}s"; grep -E "^ *[0-9]+ " $O/w4a4.txt | awk '{print $1, $2, $3, $6, $11}'; pack
