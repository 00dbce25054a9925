#!/usr/bin/env bash
# One call (RUN.md): the quantizers' E2M1 codes by fp4_code_by_reciprocal (a multiply, and the
# division only near a midpoint) through the GPU tests, then w4a4 timing of this build against
# the build before it (fp4gemm_base, commit 0e2b04a) in the same call: cuda-decode with the
# activations quantized in the kernel and by the quantizer kernel, and cuda-wgmma at M = 4096
# (its timed call quantizes 4096 x 6144 activations). Also cuda-grouped's tests (commit a674773's
# divisor). Step timeouts sum to 290 s. Build (RUN.md): `git apply` the patch here, `cmake --build
# build-h200 --target fp4gemm_cli gpu_quantize_test decode_gemm_test grouped_gemm_test`, those four
# xz'd into .carry/v14; commit 0e2b04a's fp4gemm xz'd into .carry/base13. Call: run(command="bash
# bench/results/reciprocal_fp4_code/run.sh", carry=[".carry/v14", ".carry/base13"]); files in
# $OUT/recip.tgz.
source scripts/device_prelude.sh recip .carry/v14 .carry/base13=base || exit 1
timeout 30 "$B/gpu_quantize_test" > "$O/gpu_quantize_test.log" 2>&1
echo "gpu_quantize_test rc=$? ${SECONDS}s $(summary "$O/gpu_quantize_test.log")"; pack
timeout 60 "$B/decode_gemm_test" --gtest_filter='*w4a4*:DecodeGemmInKernelQuantize.*' > "$O/decode_gemm_test.log" 2>&1
echo "decode_gemm_test rc=$? ${SECONDS}s $(summary "$O/decode_gemm_test.log")"; pack
G="--max-seconds 0.05 --ceilings datasheet"
for q in kernel separate; do
  for b in fp4gemm_base fp4gemm; do
    FP4GEMM_DECODE_A_QUANTIZE=$q step "${b}_decode_$q" 25 "$B/$b" bench -m 1,16 -n 768,256 -k 6144 --mode w4a4 \
      --backend cuda-decode $G --json "$O/${b}_decode_$q.json"
  done
done
for b in fp4gemm_base fp4gemm; do
  step "${b}_wgmma" 25 "$B/$b" bench -m 4096 -n 6144 -k 6144 --mode w4a4 --backend cuda-wgmma $G --json "$O/${b}_wgmma.json"
done
timeout 50 "$B/grouped_gemm_test" > "$O/grouped_gemm_test.log" 2>&1
echo "grouped_gemm_test rc=$? ${SECONDS}s $(summary "$O/grouped_gemm_test.log")"; pack
