#!/usr/bin/env bash
# Second call (RUN.md), after run.sh's decode_gemm_test and w4a16 steps hit their limits on the
# H100 it got: the decode tests that run.sh did not reach (wide CTAs, plans, split sums, in-kernel
# quantization, chains), then w4a16 at M = 16 and 32 with narrow CTAs forced and with the default
# rule, cublas-bf16 in the same process. Step timeouts sum to 180 s.
# Call: run(command="bash bench/results/h100_decode_wide_ctas/run2.sh", carry=[".carry/w8"]).
source scripts/device_prelude.sh w8b .carry/w8 || exit 1
timeout 110 "$B/decode_gemm_test" \
  --gtest_filter='DecodeGemmWideCtas.*:DecodeGemmPlan.*:DecodeGemmSplitSums.*:DecodeGemmChain.*:DecodeGemmInKernelQuantize.*:DecodeGemmActivationRange.*' \
  > "$O/decode_gemm_test_rest.log" 2>&1
echo "decode_gemm_test_rest rc=$? ${SECONDS}s $(summary "$O/decode_gemm_test_rest.log")"
grep -m3 -A6 "Failure" "$O/decode_gemm_test_rest.log" | head -14; pack
for width in narrow auto; do
  FP4GEMM_DECODE_CTA=$width step "w4a16_$width" 35 "$B/fp4gemm" bench -m 16,32 -n 16384,6144,4096 -k 6144 \
    --mode w4a16 --backend cuda-decode,cublas-bf16 --max-seconds 0.05 --ceilings datasheet --json "$O/w4a16_$width.json"
done
