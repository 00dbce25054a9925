#!/usr/bin/env bash
# Stop 15 call 2 (~8 min): cuda-decode v8 (placed codes in 9 operations; the M = 1 instance with
# block columns and fp32 scales on D) built from branch v8-block-columns; tests of every kernel the
# placement change touches, sanitizers, check; benches against the stop-15 call-1 binary
# fp4gemm_occ_s4_t7 (v7 with the 4-stage ring, 7 CTAs/SM) in the same call; grouped; ncu.
# Carry [".carry/v8"]; outputs packed in $OUT/v8.tgz after every step.
B=/tmp/v8b; O=/tmp/v8o; rm -rf $B $O; mkdir -p $B $O; SECONDS=0
for f in .carry/v8/*.xz; do xz -dc $f > $B/$(basename $f .xz); chmod +x $B/$(basename $f .xz); done
export FP4GEMM_CACHE_DIR=$PWD/.carry/v8/cache
s() { grep -E '^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|ERROR SUMMARY|RACECHECK SUMMARY' $1 | head -6 | tr '\n' ' '; }
pack() { tar czf $OUT/v8.tgz -C $O .; }
G="--max-seconds 0.1"
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
{ nvidia-smi -L; nvidia-smi topo -m; } > $O/topology.txt 2>&1
for t in decode_gemm_test grouped_gemm_test wgmma_gemm_test mma_gemm_test dequant_cublas_test auto_backend_test; do timeout 150 $B/$t > $O/$t.log 2>&1; echo "$t rc=$? ${SECONDS}s $(s $O/$t.log)"; grep -m3 -A6 "Failure" $O/$t.log | head -14; done; pack
timeout 60 $CS --tool memcheck $B/decode_gemm_test --gtest_filter='*AwkwardShapesAndSplitK/w4a16_nvfp4_linear_bf16:*AwkwardShapesAndSplitK/w4a16_mxfp4_swizzled_f32' > $O/memcheck_decode.log 2>&1; echo "memcheck decode rc=$? ${SECONDS}s $(s $O/memcheck_decode.log)"
timeout 60 $CS --tool racecheck $B/decode_gemm_test --gtest_filter='*AwkwardShapesAndSplitK/w4a16_nvfp4_linear_f32:*AwkwardShapesAndSplitK/w4a4_mxfp4_swizzled_f32' > $O/racecheck_decode.log 2>&1; echo "racecheck decode rc=$? ${SECONDS}s $(s $O/racecheck_decode.log)"; pack
timeout 60 $B/fp4gemm check --backend cuda-decode > $O/check.txt 2>&1; echo "check rc=$? ${SECONDS}s"; tail -3 $O/check.txt; pack
for b in fp4gemm fp4gemm_occ_s4_t7; do timeout 100 $B/$b bench -m 1,16 -n 6144,16384,4096 -k 6144 --mode w4a16 --backend cuda-decode,cublas-bf16 $G --json $O/decode_$b.json > $O/decode_$b.txt 2>&1; echo "== decode $b rc=$? ${SECONDS}s"; grep -E "^ *[0-9]+ " $O/decode_$b.txt | awk '{print $1, $2, $3, $6, $10, $11}'; pack; done
for b in fp4gemm fp4gemm_occ_s4_t7; do timeout 60 $B/$b bench -m 1 -n 6144,768 -k 2048,6144 --mode w4a16 --backend cuda-decode,cublas-bf16 $G --json $O/small_$b.json > $O/small_$b.txt 2>&1; echo "== small $b rc=$? ${SECONDS}s"; grep -E "^ *[0-9]+ " $O/small_$b.txt | awk '{print $1, $2, $3, $6, $10, $11}'; done; pack
for b in fp4gemm fp4gemm_occ_s4_t7; do timeout 60 $B/$b bench -m 1,16 -n 16384 -k 6144 --format mxfp4 --mode w4a16 --backend cuda-decode,cublas-bf16 $G --json $O/mxfp4_$b.json > $O/mxfp4_$b.txt 2>&1; echo "== mxfp4 $b rc=$? ${SECONDS}s"; grep -E "^ *[0-9]+ " $O/mxfp4_$b.txt | awk '{print $1, $2, $3, $6, $10, $11}'; done; pack
for b in fp4gemm fp4gemm_occ_s4_t7; do timeout 100 $B/$b bench --grouped --experts 32 --tokens-per-expert 1,16 -n 4096 -k 6144 --mode w4a16 $G --json $O/grouped_$b.json > $O/grouped_$b.txt 2>&1; echo "== grouped $b rc=$? ${SECONDS}s"; grep -E "^ *[0-9]+ " $O/grouped_$b.txt | cut -c1-110; done; pack
timeout 60 $(command -v ncu || echo /usr/local/cuda/bin/ncu) --clock-control none -k regex:decode_gemm -c 1 --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy $B/fp4gemm run --backend cuda-decode -m 1 -n 16384 -k 6144 --calls 2 > $O/ncu_decode_1x16384x6144.txt 2>&1; echo "ncu rc=$? ${SECONDS}s"; grep -E "Duration|DRAM Through|Issued Warp|Active Warps Per" $O/ncu_decode_1x16384x6144.txt; pack
