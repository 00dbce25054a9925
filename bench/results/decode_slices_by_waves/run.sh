#!/usr/bin/env bash
# One call (RUN.md): the K-slice count at M > 8 by waves (decode_gemm.hpp k_slices_by_waves),
# judged in the same call against 99bd833 (.carry/base) and the batched staging alone (.carry/s2,
# the CTA-count rule). Steps in order of need, each packs.
#  1. decode_gemm_test and grouped_gemm_test of this tree (the plans' tests need the GPU).
#  2. w4a16, issue 4's shapes at M = 16, 32 (N x K = 16384, 6144, 4096 x 6144; 6144 x 2048) and
#     the TP8 shapes at M = 16 (768, 512, 256 x 6144; 6144 x 768), base, s2, this tree, each
#     beside cublas-bf16 in its process.
#  3. GLM-5's gate_up experts grouped (32 x 16 tokens, 4096 x 6144) beside the per-expert
#     cublas-bf16 loop, base and this tree; w4a4 at M = 16 x 16384, 6144.
# Build: build_carry.sh. Call: run(command="bash bench/results/decode_slices_by_waves/run.sh",
# carry=[".carry/s3", ".carry/s2", ".carry/base"], timeout_s=600); files in $OUT/s3.tgz.
source scripts/device_prelude.sh s3 .carry/s3 .carry/s2=s2 .carry/base=base || exit 1
G="--max-seconds 0.05 --ceilings datasheet"
gtests decode_gemm_test:130 grouped_gemm_test:130
for b in fp4gemm_base fp4gemm_s2 fp4gemm; do
  step "${b}_issue" 45 "$B/$b" bench -m 16,32 -n 16384,6144,4096 -k 6144 --mode w4a16 \
    --backend cuda-decode,cublas-bf16 $G --json "$O/${b}_issue.json"
  step "${b}_narrow_k" 30 "$B/$b" bench -m 16,32 -n 6144 -k 2048 --mode w4a16 \
    --backend cuda-decode,cublas-bf16 $G --json "$O/${b}_narrow_k.json"
  step "${b}_tp8" 30 "$B/$b" bench -m 16 -n 768,512,256 -k 6144 --mode w4a16 \
    --backend cuda-decode,cublas-bf16 $G --json "$O/${b}_tp8.json"
  step "${b}_tp8_down" 20 "$B/$b" bench -m 16 -n 6144 -k 768 --mode w4a16 \
    --backend cuda-decode,cublas-bf16 $G --json "$O/${b}_tp8_down.json"
done
for b in fp4gemm_base fp4gemm; do
  step "${b}_grouped" 45 "$B/$b" bench --grouped --backend cuda-grouped,cublas-bf16-loop --experts 32 \
    --tokens-per-expert 16 -n 4096 -k 6144 --mode w4a16 $G --json "$O/${b}_grouped.json"
  step "${b}_w4a4" 20 "$B/$b" bench -m 16 -n 16384,6144 -k 6144 --mode w4a4 \
    --backend cuda-decode,cublas-bf16 $G --json "$O/${b}_w4a4.json"
done
