#!/usr/bin/env bash
# One call (RUN.md), two changes judged in the same call against the builds without them:
#  - cuda-decode's fragment loads of tokens past M read a staged zero row instead of a predicated
#    zero fill (zero_row.patch, decode_gemm.cuh): .carry/zero against .carry/occ;
#  - cuda-wgmma's consumers convert the next K-tile before waiting for the previous K-tile's MMAs
#    (wgmma_convert_first.patch, wgmma_gemm.cuh): .carry/wg (zero_row's tree + it) against
#    .carry/zero.
# All builds carry ../grouped_own_occupancy's change. Steps in order of need, each packs:
#  1. wgmma_gemm_test of the wgmma build; cuda-wgmma at 1024, 4096 x 6144 x 6144 / 2048, each
#     build beside cublas-bf16 in its process.
#  2. decode_gemm_test of the zero-row build; cuda-decode at 1, 8, 16, 32 x 16384 x 6144 and
#     16 x 4096 / 6144 x 6144, each build beside cublas-bf16 in its process.
#  3. ncu of the wgmma build's cuda-wgmma at 4096 x 6144 x 6144: stall reasons (issue 5).
#  4. grouped_gemm_test of the zero-row build; cuda-grouped on GLM-5's gate_up experts (32 x 4096 x
#     6144) at 16 tokens, w4a16 and w4a4, beside the per-expert cublas-bf16 loop.
# Build: scripts/build_carry.sh DIR fp4gemm_cli,decode_gemm_test,grouped_gemm_test fp4gemm
# tests/cuda/decode_gemm_test tests/cuda/grouped_gemm_test for .carry/occ (09b8f6c +
# own_occupancy.patch) and .carry/zero (and zero_row.patch); scripts/build_carry.sh .carry/wg
# fp4gemm_cli,wgmma_gemm_test fp4gemm tests/cuda/wgmma_gemm_test (and wgmma_convert_first.patch).
# Call: run(command="bash bench/results/decode_zero_row/run.sh", carry=[".carry/occ", ".carry/zero",
# ".carry/wg"]).
source scripts/device_prelude.sh zero .carry/zero .carry/occ=occ .carry/wg=wg || exit 1
G="--max-seconds 0.03 --ceilings datasheet"
gtests wgmma_gemm_test_wg:120
for b in fp4gemm fp4gemm_wg; do
  step "${b}_wgmma" 60 "$B/$b" bench -m 1024,4096 -n 6144 -k 2048,6144 --mode w4a16 \
    --backend cuda-wgmma,cublas-bf16 $G --json "$O/${b}_wgmma.json"
done
gtests decode_gemm_test:150
for b in fp4gemm_occ fp4gemm; do
  step "${b}_decode_16384" 40 "$B/$b" bench -m 1,8,16,32 -n 16384 -k 6144 --mode w4a16 \
    --backend cuda-decode,cublas-bf16 $G --json "$O/${b}_decode_16384.json"
  step "${b}_decode_16" 40 "$B/$b" bench -m 16 -n 4096,6144 -k 6144 --mode w4a16 \
    --backend cuda-decode,cublas-bf16 $G --json "$O/${b}_decode_16.json"
done
timeout 100 "$NCU" --clock-control none -k regex:wgmma_gemm -c 1 --section WarpStateStats --section SourceCounters \
  --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio --print-details all \
  "$B/fp4gemm_wg" run --backend cuda-wgmma -m 4096 -n 6144 -k 6144 --calls 2 > "$O/ncu_wgmma_stalls.txt" 2>&1
echo "ncu wgmma stalls rc=$? ${SECONDS}s"
grep -E "issue_stalled" "$O/ncu_wgmma_stalls.txt" | sort -k3 -g -r | head -8
pack
gtests grouped_gemm_test:90
for mode in w4a16 w4a4; do
  for b in fp4gemm_occ fp4gemm; do
    step "${b}_up_16_${mode}" 40 "$B/$b" bench --grouped --backend cuda-grouped,cublas-bf16-loop --experts 32 \
      --tokens-per-expert 16 -n 4096 -k 6144 --mode "$mode" $G --json "$O/${b}_up_16_${mode}.json"
  done
done
