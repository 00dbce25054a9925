#!/usr/bin/env bash
# Where cuda-decode's time goes at its two open cases (notes_decode.md): 32 x 16384 x 6144 (33 %
# of the floor, the main loop's chain at 32 tokens) and 1 x 6144 x 6144 (51 %, fixed cost), by
# Nsight Compute's full set on one cold-L2 call each, with SASS-level stall samples (CSV) to read
# on the build machine (device_prelude.sh's profile).
# Build: the stop 39 tree's .carry/land (../stop38_decide/run_d.sh's target list).
# Call: run(command="bash bench/results/decode_m32_ncu/run.sh", carry=[".carry/land"]); files in
# $OUT/decode_ncu.tgz. About 90 s.
source scripts/device_prelude.sh decode_ncu .carry/land || exit 1
profile decode_32x16384 120 decode_gemm_kernel "$B/fp4gemm" run --backend cuda-decode -m 32 -n 16384 -k 6144 --calls 2
profile decode_1x6144 90 decode_gemm_kernel "$B/fp4gemm" run --backend cuda-decode -m 1 -n 6144 -k 6144 --calls 2
