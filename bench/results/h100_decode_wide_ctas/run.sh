#!/usr/bin/env bash
# One call (RUN.md): cuda-decode's wide CTAs (8 warps, 128 rows) at M > 8, and the reciprocal E2M1
# codes judged; steps in order of need, each packs. Step timeouts sum to 597 s.
#  1. decode_gemm_test and grouped_gemm_test (the wide CTAs forced through FP4GEMM_DECODE_CTA,
#     the planner's rule, and every earlier test now under the default rule).
#  2. w4a16 M = 9, 16, 32 x N = 16384, 6144, 4096 x K = 6144: narrow CTAs forced,
#     then the default rule (wide from 96 narrow N-tiles), each with cublas-bf16 and cublaslt-fp8
#     in the same process, this GPU's read ceiling measured first.
#  3. w4a4 at M = 16 (activations quantized on the GPU in the timed call), both widths; GLM-5's
#     gate_up experts grouped (32 x 16 tokens, 4096 x 6144), both widths, with the
#     per-expert cublas-bf16 loop.
#  4. The reciprocal E2M1 codes (../wgmma_v4_consumer_convert/RUN.md): commit 8532ee8 (fp4gemm_base),
#     this tree (fp4gemm) and this tree with them (fp4gemm_recip) on cuda-decode w4a4 with the
#     activations quantized in the kernel and by the quantizer kernel, and on cuda-dequant-cublas
#     w4a4 at 4096 x 6144 x 6144 (the quantizer on 4096 x 6144 activations in every call).
#  5. compute-sanitizer memcheck and racecheck: `check` of cuda-decode forced wide (both formats,
#     M = 16, 32, 9, N not a multiple of 128, K = 32 * 37, split-K) and grouped's wide test.
# Build: build_carry.sh. Call: run(command="bash bench/results/h100_decode_wide_ctas/run.sh",
# carry=[".carry/w8", ".carry/w8r", ".carry/base"], timeout_s=600); files in $OUT/w8.tgz.
source scripts/device_prelude.sh w8 .carry/w8 .carry/w8r=recip .carry/base=base || exit 1
step ceilings 25 "$B/fp4gemm" ceilings --json "$O/ceilings.json"
G="--max-seconds 0.05 --ceilings $O/ceilings.json"
[ -f "$O/ceilings.json" ] || G="--max-seconds 0.05 --ceilings datasheet"
gtests decode_gemm_test:95 grouped_gemm_test:50
for width in narrow auto; do
  FP4GEMM_DECODE_CTA=$width step "w4a16_$width" 40 "$B/fp4gemm" bench -m 9,16,32 -n 16384,6144,4096 -k 6144 \
    --mode w4a16 --backend cuda-decode,cublas-bf16,cublaslt-fp8 $G --json "$O/w4a16_$width.json"
done
for width in narrow auto; do
  FP4GEMM_DECODE_CTA=$width step "w4a4_$width" 20 "$B/fp4gemm" bench -m 16 -n 16384,6144 -k 6144 \
    --mode w4a4 --backend cuda-decode,cublas-bf16 $G --json "$O/w4a4_$width.json"
  FP4GEMM_DECODE_CTA=$width step "grouped_$width" 40 "$B/fp4gemm" bench --grouped \
    --backend cuda-grouped,cublas-bf16-loop --experts 32 --tokens-per-expert 16 -n 4096 -k 6144 \
    --mode w4a16 $G --json "$O/grouped_$width.json"
done
for b in fp4gemm_base fp4gemm fp4gemm_recip; do
  for q in kernel separate; do
    FP4GEMM_DECODE_A_QUANTIZE=$q step "${b}_decode_$q" 12 "$B/$b" bench -m 1,16 -n 768,256 -k 6144 \
      --mode w4a4 --backend cuda-decode,cublas-bf16 $G --json "$O/${b}_decode_$q.json"
  done
  step "${b}_dequant_w4a4" 15 "$B/$b" bench -m 4096 -n 6144 -k 6144 --mode w4a4 \
    --backend cuda-dequant-cublas,cublas-bf16 $G --json "$O/${b}_dequant_w4a4.json"
done
for tool in memcheck racecheck; do
  FP4GEMM_DECODE_CTA=wide timeout 30 "$CS" --tool $tool "$B/fp4gemm" check --backend cuda-decode \
    --shapes 16x200x768,32x131x1184,9x6144x2048 > "$O/${tool}_decode.log" 2>&1
  echo "$tool decode rc=$? ${SECONDS}s $(summary "$O/${tool}_decode.log") $(tail -n 1 "$O/${tool}_decode.log")"
  timeout 25 "$CS" --tool $tool "$B/grouped_gemm_test" \
    --gtest_filter='*WideCtas*/w4a4_mxfp4_swizzled_f32:*WideCtas*/w4a16_nvfp4_linear_bf16' > "$O/${tool}_grouped.log" 2>&1
  echo "$tool grouped rc=$? ${SECONDS}s $(summary "$O/${tool}_grouped.log")"
  pack
done
