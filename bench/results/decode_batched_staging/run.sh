#!/usr/bin/env bash
# One call (RUN.md): cuda-decode's A slice staged 8 loads in flight per thread (decode_gemm.cuh
# step 1, stage_activations), judged against 99bd833 (.carry/base) in the same call; then the
# K-slice count swept through FP4GEMM_DECODE_K_SLICES. Steps in order of need, each packs.
#  1. decode_gemm_test and grouped_gemm_test of this tree.
#  2. w4a16 M = 1, 16, 32 x N = 16384, 6144, 768 x K = 6144, base then this tree, each beside
#     cublas-bf16 in its process; GLM-5's gate_up experts grouped (32 x 16 tokens, 4096 x 6144)
#     beside the per-expert cublas-bf16 loop; w4a4 at M = 1, 16 (activations quantized in the
#     kernel at N = 768, by the quantizer at 16384).
#  3. compute-sanitizer memcheck and racecheck on `check` of cuda-decode (M = 1 block columns with
#     their shift, M = 16 wide, M = 32, N not a multiple of 128, K = 32 * 37, FP4 A) and on
#     grouped's wide test.
#  4. K-slices forced to 4, 6, 8, 12 at M = 16, 32 x N = 16384, 6144 (this tree, cuda-decode).
# Build: build_carry.sh. Call: run(command="bash bench/results/decode_batched_staging/run.sh",
# carry=[".carry/s2", ".carry/base"], timeout_s=600, kind="nvidia-h100-x1"); files in $OUT/s2.tgz.
source scripts/device_prelude.sh s2 .carry/s2 .carry/base=base || exit 1
G="--max-seconds 0.05 --ceilings datasheet"
gtests decode_gemm_test:130 grouped_gemm_test:60
for b in fp4gemm_base fp4gemm; do
  step "${b}_w4a16" 45 "$B/$b" bench -m 1,16,32 -n 16384,6144,768 -k 6144 --mode w4a16 \
    --backend cuda-decode,cublas-bf16 $G --json "$O/${b}_w4a16.json"
done
for b in fp4gemm_base fp4gemm; do
  step "${b}_grouped" 45 "$B/$b" bench --grouped --backend cuda-grouped,cublas-bf16-loop --experts 32 \
    --tokens-per-expert 16 -n 4096 -k 6144 --mode w4a16 $G --json "$O/${b}_grouped.json"
  step "${b}_w4a4" 20 "$B/$b" bench -m 1,16 -n 768,16384 -k 6144 --mode w4a4 \
    --backend cuda-decode,cublas-bf16 $G --json "$O/${b}_w4a4.json"
done
for tool in memcheck racecheck; do
  sanitize $tool decode 40 "$B/fp4gemm" check --backend cuda-decode --shapes 1x200x768,16x6144x1184,32x131x1184,3x130x2048
  sanitize $tool grouped 25 "$B/grouped_gemm_test" \
    --gtest_filter='*WideCtas*/w4a4_mxfp4_swizzled_f32:*WideCtas*/w4a16_nvfp4_linear_bf16'
done
for slices in 4 6 8 12; do
  FP4GEMM_DECODE_K_SLICES=$slices step "k_slices_$slices" 20 "$B/fp4gemm" bench -m 16,32 -n 16384,6144 -k 6144 \
    --mode w4a16 --backend cuda-decode $G --json "$O/k_slices_$slices.json"
done
