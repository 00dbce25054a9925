#!/usr/bin/env bash
# Call 3 (RUN.md): the committed rule (in the kernel at M = 1 with N <= 4096) through the tests,
# `check`, and w4a16 / w4a4 timing against cublas-bf16 and cublaslt-fp8 in the same process, the
# ceilings measured first. Step timeouts sum to 420 s. Build: build_carry.sh here. Call:
# run(command="bash bench/results/h200_decode_in_kernel_quantize/run3.sh", carry=[".carry/v13"]);
# files in $OUT/v13c.tgz (unpacked into call3_h100/).
source scripts/device_prelude.sh v13c .carry/v13 || exit 1
timeout 120 "$B/decode_gemm_test" > "$O/decode_gemm_test_rule.log" 2>&1
echo "decode_gemm_test rc=$? ${SECONDS}s $(summary "$O/decode_gemm_test_rule.log")"
grep -m3 -A6 "Failure" "$O/decode_gemm_test_rule.log" | head -14; pack
step ceilings_rule 40 "$B/fp4gemm" ceilings --json "$O/ceilings_rule.json"
G="--max-seconds 0.1 --ceilings $O/ceilings_rule.json"
[ -f "$O/ceilings_rule.json" ] || G="--max-seconds 0.1 --ceilings datasheet"
S="-m 1,16 -n 16384,6144,4096,768,512,256 -k 6144"
step rule_w4a16 100 "$B/fp4gemm" bench $S --mode w4a16 --backend cuda-decode,cublas-bf16,cublaslt-fp8 $G \
  --json "$O/rule_w4a16.json"
step rule_w4a4 90 "$B/fp4gemm" bench $S --mode w4a4 --backend cuda-decode,cublas-bf16 $G --json "$O/rule_w4a4.json"
step check_rule 70 "$B/fp4gemm" check --backend cuda-decode
tail -2 "$O/check_rule.txt"
