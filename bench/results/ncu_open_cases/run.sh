#!/usr/bin/env bash
# Where the time goes in three open cases, by Nsight Compute's full set on one cold-L2 call each,
# with SASS-level stall samples (CSV) to read on the build machine (device_prelude.sh's profile):
#  1. cuda-decode 32 x 16384 x 6144 (33 % of the floor: the main loop's chain at 32 tokens) and
#     1 x 6144 x 6144 (51 %: fixed cost), notes_decode.md;
#  2. cuda-wgmma 1024 x 6144 x 2048 (0.80-0.87x cublas-bf16 at K = 2048): 3 waves of units of 32
#     K-tiles, where the plan model's per-unit term (3.4 us at 128 tokens against 13 us of
#     K-tiles, notes_wgmma.md) is a fifth of the time: how much of it is the epilogue's stores.
# Build: the stop 39 tree's .carry/land (../stop38_decide/run_d.sh's target list).
# Call: run(command="bash bench/results/ncu_open_cases/run.sh", carry=[".carry/land"]); files in
# $OUT/ncu_open.tgz. About 150 s.
source scripts/device_prelude.sh ncu_open .carry/land || exit 1
profile decode_32x16384 120 decode_gemm_kernel "$B/fp4gemm" run --backend cuda-decode -m 32 -n 16384 -k 6144 --calls 2
profile decode_1x6144 90 decode_gemm_kernel "$B/fp4gemm" run --backend cuda-decode -m 1 -n 6144 -k 6144 --calls 2
profile wgmma_1024x6144x2048 90 wgmma_gemm_kernel "$B/fp4gemm" run --backend cuda-wgmma -m 1024 -n 6144 -k 2048 --calls 2
