#!/usr/bin/env bash
# Ran on 2026-12-05 on an H100 (RUN.md has the results). Call 3 of 3 (RUN.md): the 8-warp-CTA variant (half the A re-reads at M = 16),
# w4a4 with both sums, and the sanitizers on the cluster sums. Step timeouts sum to 550 s. Call:
# run(command="bash bench/results/h100_decode_cluster_splitk/run3.sh", carry=[".carry/v11",
# ".carry/w8"]); files in $OUT/v11c3.tgz.
source scripts/device_prelude.sh v11c3 .carry/v11 .carry/w8=w8 || exit 1
G="--max-seconds 0.1 --ceilings bench/results/h200_merged_verify/ceilings.json"
S="-m 1,16 -n 16384,6144,4096,768,512,256 -k 6144 --mode w4a16 --backend cuda-decode,cublas-bf16"

timeout 100 "$B/decode_gemm_test_w8" --gtest_filter='*AwkwardShapes*:DecodeGemmSplitSums.*:DecodeGemmChain.*' \
  > "$O/decode_gemm_test_w8.log" 2>&1
echo "decode_gemm_test_w8 rc=$? ${SECONDS}s $(summary "$O/decode_gemm_test_w8.log")"; pack
for sums in global cluster; do
  FP4GEMM_DECODE_SPLIT_SUMS=$sums step "w4a16_w8_$sums" 90 "$B/fp4gemm_w8" bench $S $G --json "$O/w4a16_w8_$sums.json"
  FP4GEMM_DECODE_SPLIT_SUMS=$sums step "w4a4_$sums" 45 "$B/fp4gemm" bench -m 1,16 -n 16384,768 -k 6144 --mode w4a4 \
    --backend cuda-decode,cublas-bf16 $G --json "$O/w4a4_$sums.json"
done
for tool in memcheck racecheck synccheck; do
  timeout 60 "$CS" --tool $tool "$B/decode_gemm_test" --gtest_filter='DecodeGemmSplitSums.ClusterAndGlobalSumsGiveTheSameBits' \
    > "$O/${tool}_cluster.log" 2>&1
  echo "== $tool rc=$? ${SECONDS}s $(summary "$O/${tool}_cluster.log")"; pack
done
