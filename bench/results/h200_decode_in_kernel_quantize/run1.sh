#!/usr/bin/env bash
# Call 1 of 2 (RUN.md): the tests of the in-kernel quantization (decode_gemm.cuh step 1q) and of
# the refactored GPU quantizer, `check`, and w4a4 timing with the activations quantized by the
# quantizer kernel (separate) against in the decode kernel, then the default rule against
# cublas-bf16. Step timeouts sum to 540 s. Build: build_carry.sh here. Call:
# run(command="bash bench/results/h200_decode_in_kernel_quantize/run1.sh", carry=[".carry/v13"]);
# files in $OUT/v13a.tgz.
source scripts/device_prelude.sh v13a .carry/v13 || exit 1
for t in decode_gemm_test:200 gpu_quantize_test:60; do
  timeout "${t#*:}" "$B/${t%%:*}" > "$O/${t%%:*}.log" 2>&1
  echo "${t%%:*} rc=$? ${SECONDS}s $(summary "$O/${t%%:*}.log")"
  grep -m3 -A6 "Failure" "$O/${t%%:*}.log" | head -14
  pack
done
step ceilings 40 "$B/fp4gemm" ceilings --json "$O/ceilings.json"
G="--max-seconds 0.1 --ceilings $O/ceilings.json"
[ -f "$O/ceilings.json" ] || G="--max-seconds 0.1 --ceilings datasheet"
S="-m 1,16 -n 16384,6144,4096,768,512,256 -k 6144 --mode w4a4"
for q in separate kernel; do
  FP4GEMM_DECODE_A_QUANTIZE=$q step "w4a4_$q" 60 "$B/fp4gemm" bench $S --backend cuda-decode $G --json "$O/w4a4_$q.json"
done
step w4a4_auto 90 "$B/fp4gemm" bench $S --backend cuda-decode,cublas-bf16 $G --json "$O/w4a4_auto.json"
step check_decode 70 "$B/fp4gemm" check --backend cuda-decode
tail -2 "$O/check_decode.txt"
