#!/usr/bin/env bash
# Stop 18 call 3: cuda-decode with programmatic dependent launch (decode + GPU quantizer) and w4a4
# staged from the quantizer's bf16 block values (fp4gemm), against the PDL-only build of call 1
# (fp4gemm_pdl: w4a4 decodes FP4 A in every CTA) in the same call; GPU tests, sanitizers, check.
# Carry [".carry/s18"]; outputs packed in $OUT/s18.tgz after every step.
B=/tmp/s18b; O=/tmp/s18o; rm -rf $B $O; mkdir -p $B $O; SECONDS=0
for f in .carry/s18/*.xz; do xz -dc $f > $B/$(basename $f .xz); chmod +x $B/$(basename $f .xz); done
export FP4GEMM_CACHE_DIR=$O/cache
s() { grep -E '^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|ERROR SUMMARY|RACECHECK SUMMARY' $1 | head -6 | tr '\n' ' '; }
pack() { tar czf $OUT/s18.tgz -C $O .; }
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version --format=csv; } > $O/gpu.txt 2>&1
for t in decode_gemm_test gpu_quantize_test grouped_gemm_test mma_gemm_test auto_backend_test; do timeout 150 $B/$t > $O/$t.log 2>&1; echo "$t rc=$? ${SECONDS}s $(s $O/$t.log)"; grep -m3 -A6 "Failure" $O/$t.log | head -14; done; pack
timeout 90 $CS --tool memcheck $B/decode_gemm_test --gtest_filter='*AwkwardShapesAndSplitK/w4a4_nvfp4_linear_bf16:*AwkwardShapesAndSplitK/w4a16_mxfp4_swizzled_f32:DecodeGemmChain.*' > $O/memcheck_decode.log 2>&1; echo "memcheck decode rc=$? ${SECONDS}s $(s $O/memcheck_decode.log)"
timeout 90 $CS --tool racecheck $B/decode_gemm_test --gtest_filter='*AwkwardShapesAndSplitK/w4a4_mxfp4_swizzled_f32:*AwkwardShapesAndSplitK/w4a16_nvfp4_linear_f32:DecodeGemmChain.*' > $O/racecheck_decode.log 2>&1; echo "racecheck decode rc=$? ${SECONDS}s $(s $O/racecheck_decode.log)"
timeout 60 $CS --tool memcheck $B/gpu_quantize_test --gtest_filter='*BlockValues*' > $O/memcheck_quantize.log 2>&1; echo "memcheck quantize rc=$? ${SECONDS}s $(s $O/memcheck_quantize.log)"; pack
timeout 60 $B/fp4gemm check --backend cuda-decode > $O/check.txt 2>&1; echo "check rc=$? ${SECONDS}s"; tail -3 $O/check.txt; pack
G="--max-seconds 0.1"
for b in fp4gemm fp4gemm_pdl; do timeout 75 $B/$b bench -m 1,16 -n 16384,6144,768 -k 6144 --mode w4a4 --backend cuda-decode,cublas-bf16,cublaslt-fp8 $G --json $O/w4a4_$b.json > $O/w4a4_$b.txt 2>&1; echo "== w4a4 $b rc=$? ${SECONDS}s"; grep -E "^ *[0-9]+ " $O/w4a4_$b.txt | awk '{print $1, $2, $3, $6, $10, $11}'; pack; done
timeout 75 $B/fp4gemm bench -m 1,16 -n 6144,16384,4096,768 -k 6144 --mode w4a16 --backend cuda-decode,cublas-bf16 $G --json $O/w4a16.json > $O/w4a16.txt 2>&1; echo "== w4a16 rc=$? ${SECONDS}s"; grep -E "^ *[0-9]+ " $O/w4a16.txt | awk '{print $1, $2, $3, $6, $10, $11}'; pack
timeout 60 $B/fp4gemm bench -m 1,16 -n 6144 -k 2048 --mode w4a16 --backend cuda-decode,cublas-bf16 $G --json $O/w4a16_6144x2048.json > $O/w4a16_6144x2048.txt 2>&1; echo "== w4a16 6144x2048 rc=$? ${SECONDS}s"; grep -E "^ *[0-9]+ " $O/w4a16_6144x2048.txt | awk '{print $1, $2, $3, $6, $10, $11}'; pack
timeout 90 $(command -v ncu || echo /usr/local/cuda/bin/ncu) --clock-control none -k regex:"decode_gemm|quantize_kernel" -c 2 --section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats $B/fp4gemm run --backend cuda-decode -m 16 -n 6144 -k 6144 --mode w4a4 --calls 2 > $O/ncu_16x6144x6144_w4a4.txt 2>&1; echo "ncu rc=$? ${SECONDS}s"; grep -E "^  [a-z_]+.*\(|Duration|DRAM Through|SM Active" $O/ncu_16x6144x6144_w4a4.txt; pack
