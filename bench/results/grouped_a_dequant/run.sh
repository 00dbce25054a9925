#!/usr/bin/env bash
# One call (RUN.md) for three changes, each judged in the same call against the build without it,
# each build beside cublas-bf16 (or the per-expert cublas-bf16 loop) in its process:
#  - cuda-grouped's w4a4 dequantizes the experts' FP4 A once per call (grouped_a_dequant.patch),
#    and the split-K partials' L2 lines are discarded after their sum (discard_partials.patch):
#    .carry/deq against .carry/occ (the tree before both, 4850f0f); w4a16 moves by the discard
#    alone;
#  - cuda-decode's fragment loads of tokens past M read a staged zero row
#    (../decode_zero_row/zero_row.patch on 4850f0f): .carry/zero against .carry/occ;
#  - cuda-wgmma's consumers convert the next K-tile before waiting for the previous one's MMAs
#    (../decode_zero_row/wgmma_convert_first.patch on .carry/zero's tree): .carry/wg against
#    .carry/zero.
# Steps in order of need, each packs its files (a call cut short still returns the first ones):
#  1. grouped_gemm_test of the dequantizing build; cuda-grouped on GLM-5's gate_up experts (32 x
#     4096 x 6144) at 16 and 32 tokens, w4a4 and w4a16, both builds; cuda-decode at 1, 8, 16, 32 x
#     16384 x 6144, both builds (the discard: at 32 x 16384 the partials are 25 MB against 57 MB
#     of weights and scales); ncu: DRAM bytes read and written by the w4a16 grouped kernel at 16
#     tokens, both builds; memcheck on the new test; where that kernel's time goes with both
#     changes (ncu: speed of light, memory, warp states).
#  2. decode_gemm_test of the zero-row build; cuda-decode at 1, 8, 16, 32 x 16384 x 6144 and
#     16 x 4096 / 6144 x 6144, the zero-row build against .carry/occ.
#  3. wgmma_gemm_test of the convert-first build; cuda-wgmma at 1024, 4096 x 6144 x 6144 / 2048,
#     both builds; ncu stall reasons of the convert-first kernel at 4096 x 6144 x 6144.
#  4. cuda-grouped w4a16 at 16 tokens, zero-row build against .carry/occ.
# Builds (scripts/build_carry.sh; targets fp4gemm_cli plus the tests named):
#   .carry/occ  4850f0f: decode_gemm_test, grouped_gemm_test;
#   .carry/zero 4850f0f + zero_row.patch: the same;
#   .carry/wg   .carry/zero's tree + wgmma_convert_first.patch: wgmma_gemm_test;
#   .carry/deq  4850f0f + grouped_a_dequant.patch + discard_partials.patch: grouped_gemm_test.
# (Run in stop 33; both patches were then adopted and removed from this folder: they are in the
# history, e.g. `git show be98e3b:bench/results/grouped_a_dequant/grouped_a_dequant.patch`.)
# Call: run(command="bash bench/results/grouped_a_dequant/run.sh", carry=[".carry/occ", ".carry/zero",
# ".carry/wg", ".carry/deq"]); files in $OUT/s31.tgz.
source scripts/device_prelude.sh s31 .carry/zero .carry/occ=occ .carry/wg=wg .carry/deq=deq || exit 1
G="--max-seconds 0.03 --ceilings datasheet"
gtests grouped_gemm_test_deq:120
for mode in w4a4 w4a16; do
  for b in fp4gemm_occ fp4gemm_deq; do
    step "${b}_up_${mode}" 60 "$B/$b" bench --grouped --backend cuda-grouped,cublas-bf16-loop --experts 32 \
      --tokens-per-expert 16,32 -n 4096 -k 6144 --mode "$mode" $G --json "$O/${b}_up_${mode}.json"
  done
done
decode_16384() {  # build: cuda-decode at M = 1, 8, 16, 32 x 16384 x 6144 beside cublas-bf16
  step "$1_decode_16384" 40 "$B/$1" bench -m 1,8,16,32 -n 16384 -k 6144 --mode w4a16 \
    --backend cuda-decode,cublas-bf16 $G --json "$O/$1_decode_16384.json"
}
decode_16384 fp4gemm_occ
decode_16384 fp4gemm_deq
# DRAM bytes of the w4a16 grouped kernel at 16 tokens, without and with the L2 discard of the
# split-K partials (6 slices x 16 tokens x 4096 rows x 4 B x 32 experts = 50 MB written and read
# back, against 453 MB of weights).
for b in fp4gemm_occ fp4gemm_deq; do
  timeout 60 "$NCU" --clock-control none -k regex:grouped_gemm -c 1 --metrics \
    dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read.sum \
    "$B/$b" bench --grouped --backend cuda-grouped --experts 32 --tokens-per-expert 16 -n 4096 -k 6144 \
    --mode w4a16 --max-seconds 0.01 > "$O/ncu_bytes_$b.txt" 2>&1
  echo "ncu bytes $b rc=$? ${SECONDS}s"
  grep -E "dram__|gpu__time|lts__" "$O/ncu_bytes_$b.txt" | head -6
done
pack
sanitize memcheck dequant 40 "$B/grouped_gemm_test_deq" --gtest_filter='GroupedKernelOptions.Dequantized*'
# Where the w4a16 grouped kernel's time goes at 16 tokens, with both changes (issue 7's open part).
timeout 90 "$NCU" --clock-control none -k regex:grouped_gemm -c 1 --section SpeedOfLight \
  --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats \
  "$B/fp4gemm_deq" bench --grouped --backend cuda-grouped --experts 32 --tokens-per-expert 16 -n 4096 \
  -k 6144 --mode w4a16 --max-seconds 0.01 > "$O/ncu_grouped_16_deq.txt" 2>&1
echo "ncu grouped 16 deq rc=$? ${SECONDS}s"
grep -E "Throughput|Duration|Stall|Eligible|Issued|Achieved Occupancy|Hit Rate" "$O/ncu_grouped_16_deq.txt" | head -24
pack
gtests decode_gemm_test:150
decode_16384 fp4gemm
for b in fp4gemm_occ fp4gemm; do
  step "${b}_decode_16" 40 "$B/$b" bench -m 16 -n 4096,6144 -k 6144 --mode w4a16 \
    --backend cuda-decode,cublas-bf16 $G --json "$O/${b}_decode_16.json"
done
gtests wgmma_gemm_test_wg:120
for b in fp4gemm fp4gemm_wg; do
  step "${b}_wgmma" 60 "$B/$b" bench -m 1024,4096 -n 6144 -k 2048,6144 --mode w4a16 \
    --backend cuda-wgmma,cublas-bf16 $G --json "$O/${b}_wgmma.json"
done
timeout 100 "$NCU" --clock-control none -k regex:wgmma_gemm -c 1 --section WarpStateStats --section SourceCounters \
  --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio --print-details all \
  "$B/fp4gemm_wg" run --backend cuda-wgmma -m 4096 -n 6144 -k 6144 --calls 2 > "$O/ncu_wgmma_stalls.txt" 2>&1
echo "ncu wgmma stalls rc=$? ${SECONDS}s"
grep -E "issue_stalled" "$O/ncu_wgmma_stalls.txt" | sort -k3 -g -r | head -8
pack
for b in fp4gemm_occ fp4gemm; do
  step "${b}_up_16_w4a16" 40 "$B/$b" bench --grouped --backend cuda-grouped,cublas-bf16-loop --experts 32 \
    --tokens-per-expert 16 -n 4096 -k 6144 --mode w4a16 $G --json "$O/${b}_up_16_w4a16.json"
done
