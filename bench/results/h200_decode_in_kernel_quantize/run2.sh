#!/usr/bin/env bash
# Call 2 of 2 (RUN.md): cuda-grouped (its kernel shares decode_cta, whose Params grew) and the
# sanitizers on the in-kernel quantization. Step timeouts sum to 340 s. Call:
# run(command="bash bench/results/h200_decode_in_kernel_quantize/run2.sh", carry=[".carry/v13"]);
# files in $OUT/v13b.tgz.
source scripts/device_prelude.sh v13b .carry/v13 || exit 1
timeout 100 "$B/grouped_gemm_test" > "$O/grouped_gemm_test.log" 2>&1
echo "grouped_gemm_test rc=$? ${SECONDS}s $(summary "$O/grouped_gemm_test.log")"; pack
for tool in memcheck racecheck; do
  timeout 120 "$CS" --tool $tool "$B/decode_gemm_test" --gtest_filter='DecodeGemmInKernelQuantize.GivesTheBitsOfTheQuantizerKernel' \
    > "$O/${tool}_in_kernel.log" 2>&1
  echo "== $tool rc=$? ${SECONDS}s $(summary "$O/${tool}_in_kernel.log")"; pack
done
