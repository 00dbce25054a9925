#!/usr/bin/env bash
# Stop 19 call 3: the A slice staged with 8 loads in flight per thread and the one-atomic split-K
# handshake (fp4gemm) against call 2's build (.carry/s19/fp4gemm), tests, sanitizers, check,
# grouped. Carry [".carry/s19", ".carry/s19c"]; outputs packed in $OUT/s19c.tgz.
B=/tmp/s19c; O=/tmp/s19co; rm -rf $B $O; mkdir -p $B $O; SECONDS=0
for f in .carry/s19c/*.xz; do xz -dc $f > $B/$(basename $f .xz); chmod +x $B/$(basename $f .xz); done
xz -dc .carry/s19/fp4gemm.xz > $B/fp4gemm_call2; chmod +x $B/fp4gemm_call2
export FP4GEMM_CACHE_DIR=$O/cache
C="--ceilings bench/results/h200_merged_verify/ceilings.json"
s() { grep -E '^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|ERROR SUMMARY|RACECHECK SUMMARY' $1 | head -6 | tr '\n' ' '; }
pack() { tar czf $OUT/s19c.tgz -C $O .; }
r() { grep -E "^ *[0-9]+ " $1 | awk '{print $1, $2, $3, $6, $10, $11}'; }
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version --format=csv; } > $O/gpu.txt 2>&1
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for t in decode_gemm_test grouped_gemm_test mma_gemm_test; do timeout 150 $B/$t > $O/$t.log 2>&1; echo "$t rc=$? ${SECONDS}s $(s $O/$t.log)"; grep -m3 -A6 "Failure" $O/$t.log | head -14; done; pack
timeout 60 $CS --tool memcheck $B/decode_gemm_test --gtest_filter='*AwkwardShapesAndSplitK/w4a4_nvfp4_linear_bf16:*AwkwardShapesAndSplitK/w4a16_mxfp4_swizzled_f32:DecodeGemmChain.*' > $O/memcheck_decode.log 2>&1; echo "memcheck decode rc=$? ${SECONDS}s $(s $O/memcheck_decode.log)"
timeout 60 $CS --tool racecheck $B/decode_gemm_test --gtest_filter='*AwkwardShapesAndSplitK/w4a16_nvfp4_linear_f32:DecodeGemmChain.*' > $O/racecheck_decode.log 2>&1; echo "racecheck decode rc=$? ${SECONDS}s $(s $O/racecheck_decode.log)"; pack
timeout 40 $B/fp4gemm check --backend cuda-decode > $O/check.txt 2>&1; echo "check rc=$? ${SECONDS}s"; tail -2 $O/check.txt; pack
G="--max-seconds 0.1 $C"
timeout 80 $B/fp4gemm bench -m 1,16 -n 16384,6144,4096,768 -k 6144 --mode w4a16 --backend cuda-decode,cublas-bf16 $G --json $O/w4a16.json > $O/w4a16.txt 2>&1; echo "== w4a16 rc=$? ${SECONDS}s"; r $O/w4a16.txt; pack
timeout 60 $B/fp4gemm bench -m 1,16 -n 16384,6144,768 -k 6144 --mode w4a4 --backend cuda-decode,cublas-bf16 $G --json $O/w4a4.json > $O/w4a4.txt 2>&1; echo "== w4a4 rc=$? ${SECONDS}s"; r $O/w4a4.txt; pack
timeout 130 $B/fp4gemm bench --grouped --backend cuda-grouped,cublas-bf16-loop --experts 32 --tokens-per-expert 1,16 -n 4096 -k 6144 --mode w4a16 $G --json $O/grouped.json > $O/grouped.txt 2>&1; echo "== grouped rc=$? ${SECONDS}s"; r $O/grouped.txt; pack
timeout 50 $B/fp4gemm_call2 bench -m 16 -n 16384,6144,4096,768 -k 6144 --mode w4a16 --backend cuda-decode $G --json $O/w4a16_m16_call2.json > $O/w4a16_m16_call2.txt 2>&1; echo "== w4a16 m16 call2 build rc=$? ${SECONDS}s"; r $O/w4a16_m16_call2.txt; pack
