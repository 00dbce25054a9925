#!/usr/bin/env bash
# Call 8: cuda-decode v4 (final binary): benchmarks (graph replay, cold L2), tests, memcheck/racecheck.
B=/tmp/fp4bin; mkdir -p $B; tar xJf .carry/lead/bin.tar.xz -C $B
T=$OUT/tests.log; SECONDS=0
export FP4GEMM_CACHE_DIR=$PWD/.carry/lead/cache
t() { local lim=$1; shift; timeout $lim "$@"; }
s() { grep -E '^\[  (PASSED|FAILED) |^\[  FAILED  \]|ERROR SUMMARY|RACECHECK SUMMARY' $1 | head -8 | tr '\n' ' '; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
G="--max-seconds 0.1"
t 130 $B/fp4gemm bench -m 1,16,32 -n 6144,16384,4096 -k 6144 --mode w4a16 --backend cuda-decode,cublas-bf16,cublaslt-fp8 $G --json $OUT/decode_main.json > $OUT/decode_main.txt 2>&1; echo "decode main rc=$? ${SECONDS}s"
grep -E "^ *[0-9]+ " $OUT/decode_main.txt | cut -c1-105
t 90 $B/tests/cuda/decode_gemm_test > /tmp/l 2>&1; echo "decode test rc=$? ${SECONDS}s $(s /tmp/l)" | tee -a $T
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
t 60 $CS --tool memcheck $B/tests/cuda/decode_gemm_test --gtest_filter='*EveryMFrom1To32/w4a16_nvfp4_linear_bf16:*AwkwardShapesAndSplitK/*swizzled_f32' > /tmp/l 2>&1; echo "memcheck rc=$? ${SECONDS}s $(s /tmp/l)" | tee -a $T
t 60 $CS --tool racecheck $B/tests/cuda/decode_gemm_test --gtest_filter='*AwkwardShapesAndSplitK/w4a16_nvfp4_linear_f32:*AwkwardShapesAndSplitK/w4a4_mxfp4_swizzled_f32' > /tmp/l 2>&1; echo "racecheck rc=$? ${SECONDS}s $(s /tmp/l)" | tee -a $T
t 60 $B/fp4gemm bench -m 1,4,16 -n 768,256 -k 6144 --mode w4a16 --backend cuda-decode,cublas-bf16 $G --json $OUT/tp8.json > $OUT/tp8.txt 2>&1; echo "tp8 rc=$? ${SECONDS}s"
t 30 $B/fp4gemm bench -m 1,16 -n 6144 -k 6144 --mode w4a4 --backend cuda-decode,cublas-bf16 $G --json $OUT/w4a4.json > $OUT/w4a4.txt 2>&1; echo "w4a4 rc=$? ${SECONDS}s"
t 80 $B/fp4gemm bench --grouped --experts 32 --tokens-per-expert 1,4,16 -n 4096 -k 6144 --mode w4a16 $G --json $OUT/grouped.json > $OUT/grouped.txt 2>&1; echo "grouped rc=$? ${SECONDS}s"
t 40 $B/fp4gemm bench -m 1,16,32 -n 6144 -k 2048 --mode w4a16 --backend cuda-decode,cublas-bf16,cublaslt-fp8 $G --json $OUT/decode_2048.json > $OUT/decode_2048.txt 2>&1; echo "decode 2048 rc=$? ${SECONDS}s"
t 50 $B/tests/cuda/grouped_gemm_test > /tmp/l 2>&1; echo "grouped test rc=$? ${SECONDS}s $(s /tmp/l)" | tee -a $T
for f in tp8 w4a4 grouped decode_2048; do grep -E "^ *[0-9]+ " $OUT/$f.txt | cut -c1-105; done
