#!/usr/bin/env bash
# One call (RUN.md): where the time goes in the three kernels whose targets are still open, by
# Nsight Compute's full set on one cold-L2 call each (ncu flushes the caches before a profiled
# kernel), reports printed as text here (no ncu on the build machine):
#  1. cuda-decode w4a16 16 x 16384 x 6144 (wide CTAs by the rule), and 1 x 16384 x 6144;
#  2. cuda-grouped w4a16, 32 experts x 16 tokens, 4096 x 6144 (GLM-5 gate_up under EP8);
#  3. cuda-wgmma w4a16 4096 x 6144 x 6144.
# Call: run(command="bash bench/results/ncu_breakdown/run.sh", carry=[".carry/w8"]); files in
# $OUT/ncu.tgz.
source scripts/device_prelude.sh ncu .carry/w8 || exit 1
profile decode_16x16384 120 decode_gemm_kernel "$B/fp4gemm" run --backend cuda-decode -m 16 -n 16384 -k 6144 --calls 2
profile decode_1x16384 90 decode_gemm_kernel "$B/fp4gemm" run --backend cuda-decode -m 1 -n 16384 -k 6144 --calls 2
profile grouped_32x16 150 grouped "$B/fp4gemm" bench --grouped --backend cuda-grouped --experts 32 \
  --tokens-per-expert 16 -n 4096 -k 6144 --mode w4a16 --max-seconds 0.01 --ceilings datasheet
profile wgmma_4096 120 wgmma "$B/fp4gemm" run --backend cuda-wgmma -m 4096 -n 6144 -k 6144 --calls 2
