#!/usr/bin/env bash
# The call made instead of run.sh (RUN.md: the session's device time was short): the same builds,
# only decode_gemm_test and issue 4's large shapes at M = 16, 32 (N = 16384, 6144, 4096 x K =
# 6144; 6144 x 2048), base then this tree, each beside cublas-bf16 in its process.
# Call: run(command="bash bench/results/decode_slices_min_groups/run2.sh", carry=[".carry/s4",
# ".carry/base"], timeout_s=200); files in $OUT/s4.tgz.
source scripts/device_prelude.sh s4 .carry/s4 .carry/base=base || exit 1
G="--max-seconds 0.03 --ceilings datasheet"
for b in fp4gemm_base fp4gemm; do
  step "${b}_issue" 40 "$B/$b" bench -m 16,32 -n 16384,6144,4096 -k 6144 --mode w4a16 \
    --backend cuda-decode,cublas-bf16 $G --json "$O/${b}_issue.json"
  step "${b}_narrow_k" 20 "$B/$b" bench -m 16,32 -n 6144 -k 2048 --mode w4a16 \
    --backend cuda-decode,cublas-bf16 $G --json "$O/${b}_narrow_k.json"
done
gtests decode_gemm_test:100
