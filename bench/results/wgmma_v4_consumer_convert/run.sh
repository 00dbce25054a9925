#!/usr/bin/env bash
# One call (RUN.md), steps in order of need; each step packs, so a call cut at its limit still
# returns the steps before. Step timeouts sum to 635 s against the call's 600: the last steps are
# the ones to lose.
#  1. The GPU tests of the kernels that changed: cuda-wgmma v4, the quantizers' reciprocal codes,
#     cuda-decode (in-kernel quantization with no FP4 A uploaded, non-finite input), cuda-grouped.
#  2. cuda-wgmma and cuda-dequant-cublas (auto's pick from M = 256) w4a16 at M = 256, 1024, 4096
#     x 6144 x (6144, 2048) beside cublas-bf16 in the same process, then the commit before
#     (fp4gemm_base, 8532ee8) on the same shapes; cuda-wgmma w4a4 at 4096 x 6144 x 6144.
#  3. compute-sanitizer on cuda-wgmma (a small shape of each format, the large BM = 256 test with
#     tails), the SASS of its kernels, `check --backend cuda-wgmma`.
#  4. GLM-5's gate_up experts grouped (32 x 4096 x 6144) against the cublas-bf16 loop; the commit
#     before against this build on cuda-decode w4a4 with the activations quantized in the kernel
#     and by the quantizer kernel.
# Call: run(command="bash bench/results/wgmma_v4_consumer_convert/run.sh", carry=[".carry/v15",
# ".carry/base"], timeout_s=600); files in $OUT/v15.tgz.
source scripts/device_prelude.sh v15 .carry/v15 .carry/base=base || exit 1
gtests wgmma_gemm_test:40 gpu_quantize_test:25 decode_gemm_test:90 grouped_gemm_test:45
G="--max-seconds 0.05 --ceilings datasheet"
step wgmma 50 "$B/fp4gemm" bench -m 256,1024,4096 -n 6144 -k 6144,2048 --mode w4a16 \
  --backend cuda-wgmma,cuda-dequant-cublas,cublas-bf16 $G --json "$O/wgmma.json"
step fp4gemm_base_wgmma 25 "$B/fp4gemm_base" bench -m 256,1024,4096 -n 6144 -k 6144,2048 --mode w4a16 \
  --backend cuda-wgmma,cublas-bf16 $G --json "$O/fp4gemm_base_wgmma.json"
step wgmma_w4a4 20 "$B/fp4gemm" bench -m 4096 -n 6144 -k 6144 --mode w4a4 \
  --backend cuda-wgmma,cublas-bf16 $G --json "$O/wgmma_w4a4.json"
FW='AllCombos/WgmmaGemm.RandomOperandsWithinTheAccumulationBound/w4a16_nvfp4_linear_bf16:AllCombos/WgmmaGemm.RandomOperandsWithinTheAccumulationBound/w4a16_mxfp4_swizzled_f32:WgmmaGemmLarge.WideTokenTilesWithTails'
for tool in racecheck synccheck memcheck; do
  timeout 50 "$CS" --tool $tool "$B/wgmma_gemm_test" --gtest_filter="$FW" > "$O/${tool}_wgmma.log" 2>&1
  echo "$tool rc=$? ${SECONDS}s $(summary "$O/${tool}_wgmma.log")"; pack
done
# The SASS of the two cuda-wgmma kernels: HGMMA, setmaxnreg (USETMAXREG), no local memory.
CUOBJDUMP=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
timeout 30 "$CUOBJDUMP" -sass "$B/fp4gemm" > /tmp/v15_sass.txt 2>&1
awk 'function report() { print name; for (k in n) print "  " k, n[k] }
     /Function :/ { if (name != "") report(); name = /wgmma_gemm_kernel/ ? $0 : ""; delete n; next }
     name != "" && /HGMMA/ { n["HGMMA"]++ }
     name != "" && /USETMAXREG/ { n["USETMAXREG"]++ }
     name != "" && /LDL|STL/ { n["LDL/STL"]++ }
     END { if (name != "") report() }' /tmp/v15_sass.txt > "$O/sass_wgmma_summary.txt"
awk '/Function :/ {keep = /wgmma_gemm_kernel.*Li256/} keep' /tmp/v15_sass.txt > "$O/sass_wgmma_tile256.txt"
echo "sass ${SECONDS}s"; cat "$O/sass_wgmma_summary.txt"; pack
step check_wgmma 60 "$B/fp4gemm" check --backend cuda-wgmma
tail -n 2 "$O/check_wgmma.txt"
step grouped_4096x6144 40 "$B/fp4gemm" bench --grouped --backend cuda-grouped,cublas-bf16-loop \
  --experts 32 --tokens-per-expert 1,16 -n 4096 -k 6144 --mode w4a16 $G --json "$O/grouped_4096x6144.json"
for q in kernel separate; do
  for b in fp4gemm_base fp4gemm; do
    FP4GEMM_DECODE_A_QUANTIZE=$q step "${b}_decode_$q" 15 "$B/$b" bench -m 1,16 -n 768,256 -k 6144 \
      --mode w4a4 --backend cuda-decode,cublas-bf16 $G --json "$O/${b}_decode_$q.json"
  done
done
