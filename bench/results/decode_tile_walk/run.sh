#!/usr/bin/env bash
# One call (RUN.md): cuda-decode's CTAs walking several N-tiles of their K-slice (decode_gemm.cuh,
# tiles_per_cta_for_one_wave), judged in the same call against commit c4c4892 (.carry/head).
# Steps in order of need, each packs.
#  1. decode_gemm_test and grouped_gemm_test of this tree.
#  2. w4a16, issue 4's shapes at M = 16, 32 (N x K = 16384, 6144, 4096 x 6144) and GLM-5's
#     gate_up experts grouped (32 x 16 tokens, 4096 x 6144), head then this tree, each beside
#     cublas-bf16 (the grouped one beside the per-expert cublas-bf16 loop) in its process.
#  3. The rest of issue 4's shapes: M = 1 (N = 16384, 6144, 4096 x 6144; 6144 x 2048), M = 16 and
#     32 at 6144 x 2048, the TP8 shapes at M = 16, grouped at 1 token and w4a4 at 16 tokens.
#  4. This tree with one tile per CTA forced (the walk's code and registers without the walk),
#     K-slice counts forced at 16 and 32 x 16384 x 6144 (the slice rule was fitted without the walk)
#     and at M = 1 (N = 16384, 6144, 4096 x 6144: 1 and 2 slices against the rule's 3, 6, 8).
#  5. compute-sanitizer memcheck and racecheck on the walk's tests.
# Build: at c4c4892 with walk.patch applied (git apply), scripts/build_carry.sh .carry/walk
# fp4gemm_cli,decode_gemm_test,grouped_gemm_test fp4gemm tests/cuda/decode_gemm_test
# tests/cuda/grouped_gemm_test; .carry/head: the same targets at c4c4892 (packed as *.xz).
# Call: run(command="bash bench/results/decode_tile_walk/run.sh", carry=[".carry/walk",
# ".carry/head"], timeout_s=600); files in $OUT/walk.tgz.
source scripts/device_prelude.sh walk .carry/walk .carry/head=head || exit 1
G="--max-seconds 0.03 --ceilings datasheet"
gtests decode_gemm_test:150 grouped_gemm_test:150
for b in fp4gemm_head fp4gemm; do
  step "${b}_issue" 40 "$B/$b" bench -m 16,32 -n 16384,6144,4096 -k 6144 --mode w4a16 \
    --backend cuda-decode,cublas-bf16 $G --json "$O/${b}_issue.json"
  step "${b}_grouped" 40 "$B/$b" bench --grouped --backend cuda-grouped,cublas-bf16-loop --experts 32 \
    --tokens-per-expert 16 -n 4096 -k 6144 --mode w4a16 $G --json "$O/${b}_grouped.json"
done
for b in fp4gemm_head fp4gemm; do
  step "${b}_m1" 30 "$B/$b" bench -m 1 -n 16384,6144,4096 -k 6144 --mode w4a16 \
    --backend cuda-decode,cublas-bf16 $G --json "$O/${b}_m1.json"
  step "${b}_narrow_k" 30 "$B/$b" bench -m 1,16,32 -n 6144 -k 2048 --mode w4a16 \
    --backend cuda-decode,cublas-bf16 $G --json "$O/${b}_narrow_k.json"
  step "${b}_tp8" 30 "$B/$b" bench -m 16 -n 768,512,256 -k 6144 --mode w4a16 \
    --backend cuda-decode,cublas-bf16 $G --json "$O/${b}_tp8.json"
  step "${b}_grouped1" 30 "$B/$b" bench --grouped --backend cuda-grouped,cublas-bf16-loop --experts 32 \
    --tokens-per-expert 1 -n 4096 -k 6144 --mode w4a16 $G --json "$O/${b}_grouped1.json"
  step "${b}_grouped_w4a4" 30 "$B/$b" bench --grouped --backend cuda-grouped,cublas-bf16-loop --experts 32 \
    --tokens-per-expert 16 -n 4096 -k 6144 --mode w4a4 $G --json "$O/${b}_grouped_w4a4.json"
done
FP4GEMM_DECODE_TILES_PER_CTA=1 step one_tile 30 "$B/fp4gemm" bench -m 16,32 -n 16384,6144 -k 6144 --mode w4a16 \
  --backend cuda-decode,cublas-bf16 $G --json "$O/one_tile.json"
for s in 3 4 6 8 12; do
  FP4GEMM_DECODE_K_SLICES=$s step "slices_$s" 25 "$B/fp4gemm" bench -m 16,32 -n 16384 -k 6144 --mode w4a16 \
    --backend cuda-decode,cublas-bf16 $G --json "$O/slices_$s.json"
done
for s in 1 2 6; do
  FP4GEMM_DECODE_K_SLICES=$s step "m1_slices_$s" 25 "$B/fp4gemm" bench -m 1 -n 16384,6144,4096 -k 6144 --mode w4a16 \
    --backend cuda-decode,cublas-bf16 $G --json "$O/m1_slices_$s.json"
done
sanitize memcheck walk 120 "$B/decode_gemm_test" --gtest_filter='DecodeGemmPlan.TilesPerCta*'
sanitize racecheck walk 120 "$B/grouped_gemm_test" --gtest_filter='*TilesPerCta*w4a16_nvfp4_linear_bf16'
