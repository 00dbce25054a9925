#!/usr/bin/env bash
# Stop 35's third call (NOT RUN): the tree adopted (.carry/fin, built from f24cde0 or later: f9f4fc5 + the quantizing instances + the
# all-rows-real loop at 16 tokens + the w4a4 rule at M >= 2; `scripts/build_carry.sh .carry/fin
# fp4gemm_cli,decode_gemm_test,grouped_gemm_test fp4gemm tests/cuda/decode_gemm_test
# tests/cuda/grouped_gemm_test`) against the base (.carry/h, f9f4fc5).
# Call: run(command="bash bench/results/quantizing_instances_adopted/run.sh", carry=[".carry/h", ".carry/fin"]);
# files in $OUT/s35c.tgz.
source scripts/device_prelude.sh s35c .carry/h .carry/fin=fin || exit 1
gtests decode_gemm_test_fin:170 grouped_gemm_test_fin:120
for b in fp4gemm fp4gemm_fin; do
  step "w4a4_$b" 60 "$B/$b" bench -m 1,2,4,8 -n 768,256 -k 6144 --backend cuda-decode,cublas-bf16 --mode w4a4 \
    --max-seconds 0.02 --json "$O/w4a4_$b.json"
done
for b in fp4gemm fp4gemm_fin; do
  step "w4a16_$b" 60 "$B/$b" bench -m 1,8,16,32 -n 16384,6144 -k 6144 --backend cuda-decode,cublas-bf16 --mode w4a16 \
    --max-seconds 0.02 --json "$O/w4a16_$b.json"
done
