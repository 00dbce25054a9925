#!/usr/bin/env bash
# Stop 18 call 4: w4a4 of fp4gemm (block values) against fp4gemm_pdl in the same call (cublas-bf16
# in each run); racecheck of the decode chain and one w4a4 awkward-shape case.
B=/tmp/s18b; O=/tmp/s18o4; rm -rf $O; mkdir -p $B $O; SECONDS=0
[ -x $B/fp4gemm ] || for f in .carry/s18/*.xz; do xz -dc $f > $B/$(basename $f .xz); chmod +x $B/$(basename $f .xz); done
export FP4GEMM_CACHE_DIR=$O/cache
s() { grep -E '^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|ERROR SUMMARY|RACECHECK SUMMARY' $1 | head -6 | tr '\n' ' '; }
pack() { tar czf $OUT/s18_call4.tgz -C $O .; }
G="--max-seconds 0.1"
for b in fp4gemm fp4gemm_pdl; do timeout 80 $B/$b bench -m 1,16 -n 16384,6144,768 -k 6144 --mode w4a4 --backend cuda-decode,cublas-bf16 $G --json $O/w4a4_$b.json > $O/w4a4_$b.txt 2>&1; echo "== w4a4 $b rc=$? ${SECONDS}s"; grep -E "^ *[0-9]+ " $O/w4a4_$b.txt | awk '{print $1, $2, $3, $6, $10, $11}'; pack; done
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 150 $CS --tool racecheck $B/decode_gemm_test --gtest_filter='*AwkwardShapesAndSplitK/w4a4_mxfp4_swizzled_f32:DecodeGemmChain.*' > $O/racecheck_decode.log 2>&1; echo "racecheck decode rc=$? ${SECONDS}s $(s $O/racecheck_decode.log)"; pack
