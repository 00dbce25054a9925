#!/usr/bin/env bash
# Ran on 2026-12-05 on an H100 (RUN.md has the results). Call 2 of 3 (RUN.md): timing, one process per build or switch, ratios against
# cublas-bf16 in the same process: the committed kernels (fp4gemm_base, e31eea3), v11 with the
# global sums (the cost of the added code), v11 with the cluster sums; cuda-grouped (now a
# programmatic dependent launch) against the committed build. Step timeouts sum to 510 s. Call:
# run(command="bash bench/results/h100_decode_cluster_splitk/run2.sh", carry=[".carry/v11",
# ".carry/base"]); files in $OUT/v11c2.tgz.
source scripts/device_prelude.sh v11c2 .carry/v11 .carry/base=base || exit 1
G="--max-seconds 0.1 --ceilings bench/results/h200_merged_verify/ceilings.json"
S="-m 1,16 -n 16384,6144,4096,768,512,256 -k 6144 --mode w4a16 --backend cuda-decode,cublas-bf16"

step w4a16_base 90 "$B/fp4gemm_base" bench $S $G --json "$O/w4a16_base.json"
for sums in global cluster; do
  FP4GEMM_DECODE_SPLIT_SUMS=$sums step "w4a16_$sums" 90 "$B/fp4gemm" bench $S $G --json "$O/w4a16_$sums.json"
  FP4GEMM_DECODE_SPLIT_SUMS=$sums step "k2048_$sums" 40 "$B/fp4gemm" bench -m 1,16 -n 6144 -k 2048 --mode w4a16 \
    --backend cuda-decode,cublas-bf16 $G --json "$O/k2048_$sums.json"
done
for b in fp4gemm_base fp4gemm; do
  step "grouped_$b" 80 "$B/$b" bench --grouped --backend cuda-grouped,cublas-bf16-loop --experts 32 \
    --tokens-per-expert 1,16 -n 4096 -k 6144 --mode w4a16 $G --json "$O/grouped_$b.json"
done
