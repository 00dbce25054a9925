#!/usr/bin/env bash
# The call that decides cuda-fp8-lossy v3 (the two consumer warpgroups take turns issuing their
# K-blocks, each handing the turn over after the first half of its MMAs: notes_fp8.md v3) beside
# v1 (the landed kernel), cublaslt-fp8 and cublas-bf16.
# Builds (scripts/build_carry.sh DIR TARGETS FILES; RUN.md has the commands):
#   .carry/fin   the landed tree;
#   .carry/next  that + the pending patches (../fixed_walk, ../wgmma_v6_register_a, this one).
# Call: run(command="bash bench/results/fp8_turns/run.sh", carry=[".carry/fin", ".carry/next"]);
# files in $OUT/fp8_turns.tgz. Most wanted first; every step packs.
source scripts/device_prelude.sh fp8_turns .carry/fin=fin .carry/next=next || exit 1
gtests fp8_gemm_test_next:90 fp8_gemm_test_fin:90
G="--max-seconds 0.05 --ceilings datasheet"
# 1. Each build's cuda-fp8-lossy beside cublaslt-fp8 (and cublas-bf16) in one process: issue 5's
#    shapes at M = 1024 and 4096, K = 6144, then 6144 x 2048.
for b in next fin; do
  step "fp8_$b" 60 "$B/fp4gemm_$b" bench -m 1024,4096 -n 6144,16384,4096 -k 6144 --mode w4a16 \
    --backend cuda-fp8-lossy,cublaslt-fp8,cublas-bf16 $G --json "$O/fp8_$b.json"
  step "fp8_2048_$b" 30 "$B/fp4gemm_$b" bench -m 1024,4096 -n 6144 -k 2048 --mode w4a16 \
    --backend cuda-fp8-lossy,cublaslt-fp8 $G --json "$O/fp8_2048_$b.json"
done
# 2. Correctness beyond the GPU tests: check's full grid (the lossy bound), then the sanitizers
#    on one tile per CTA and on many (the turns run on across tiles).
step check_fp8_next 120 "$B/fp4gemm_next" check --backend cuda-fp8-lossy
tail -n 2 "$O/check_fp8_next.txt"
F8='AllCombos/Fp8Gemm.RandomOperandsWithinTheDerivedBound/w4a16_nvfp4_linear_bf16:Fp8GemmLarge.ManyTilesPerCta'
for tool in synccheck racecheck memcheck; do
  sanitize "$tool" fp8 60 "$B/fp8_gemm_test_next" --gtest_filter="$F8"
done
# 3. The tensor pipe's share and the warp states at 4096 x 6144 x 6144 (v1: 47 % active).
timeout 90 "$NCU" --clock-control none -k regex:fp8_gemm_kernel -c 1 --section SpeedOfLight \
  --section WarpStateStats --section ComputeWorkloadAnalysis \
  "$B/fp4gemm_next" run --backend cuda-fp8-lossy -m 4096 -n 6144 -k 6144 --calls 2 > "$O/ncu_fp8_next.txt" 2>&1
echo "== ncu fp8 next rc=$? ${SECONDS}s"
grep -E "Duration|highest-utilized|Issue Slots Busy|Stall|Issued Warp|Eligible" "$O/ncu_fp8_next.txt" | sed 's/^ *//' | head -16
pack
# 4. Unrelated to v3, with the time this call leaves: the landed build's decode and grouped GPU
#    tests (stop 37 added long K-slices, the grouped block-column instance, a bound below the
#    chunk or of 0 and w4a4 operands without A's bf16 source, whose fixes landed untested:
#    grouped_gemm.cuh expert_params, decode_backend.cu prepare), that bound test under memcheck
#    (it overran shared memory before the fix).
gtests grouped_gemm_test_fin:120 decode_gemm_test_fin:200
sanitize memcheck grouped_bound 60 "$B/grouped_gemm_test_fin" \
  --gtest_filter='GroupedKernelOptions.AnExpertOverABoundBelowTheChunkIsReported'
# 5. Unrelated to v3, with the time this call leaves: where cuda-decode's time goes at M = 32
#    (issue 4: 38 % of the floor at 32 x 16384 x 6144 on an H100; the candidate build has the fixed
#    walk). Warp states and stall samples per SASS instruction, the source page as CSV.
timeout 120 "$NCU" --clock-control none -k regex:decode_gemm -c 1 --section SpeedOfLight --section WarpStateStats \
  --section SourceCounters --section Occupancy -o "$O/decode_m32" "$B/fp4gemm_next" run --backend cuda-decode \
  -m 32 -n 16384 -k 6144 --calls 2 > "$O/ncu_decode_m32.txt" 2>&1
echo "== ncu decode m32 rc=$? ${SECONDS}s"
timeout 60 "$NCU" --import "$O/decode_m32.ncu-rep" --page source --print-source sass --csv > "$O/decode_m32_sass.csv" 2>&1
grep -E "Duration|Throughput|Achieved Occupancy|Issued Warp|Eligible|Stall" "$O/ncu_decode_m32.txt" | sed 's/^ *//' | head -16
pack
