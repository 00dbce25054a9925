#!/usr/bin/env bash
# quantizing_instances.patch against commit 89b299f: cuda-decode's kernel instances that quantize
# w4a4's A in the CTA (step 1q) apart from those that stage bf16 (a template flag), and step 1q
# with a scale block spread over 4 / 8 threads (as the quantizer kernel for small tensors).
# Builds: .carry/v35 (89b299f's fp4gemm, as fp4gemm_base: grouped_k_slices/run.sh's build) and
# .carry/qi (patched: `git apply bench/results/decode_quantizing_instances/quantizing_instances.patch`,
# then `scripts/build_carry.sh .carry/qi fp4gemm_cli,decode_gemm_test fp4gemm tests/cuda/decode_gemm_test`).
# Call: run(command="bash bench/results/decode_quantizing_instances/run.sh", carry=[".carry/v35", ".carry/qi"]);
# files in $OUT/qi.tgz.
source scripts/device_prelude.sh qi .carry/v35=base .carry/qi || exit 1
# 1. The patched kernels against the reference and the quantizer kernel's bits (the in-kernel
#    tests force step 1q at M = 1..32).
gtests decode_gemm_test:150
step ceilings 60 "$B/fp4gemm" ceilings --json "$O/ceilings.json"
# 2. w4a4 at the small shapes, the quantizer kernel (separate) against step 1q (kernel), both
#    builds, each process beside cublas-bf16; M = 1 at N <= 4096 is in-kernel by the rule.
for b in fp4gemm_base fp4gemm; do
  for q in separate kernel; do
    FP4GEMM_DECODE_A_QUANTIZE=$q step "${b}_${q}" 90 "$B/$b" bench -m 1,2,4,8,16 -n 768,256 -k 6144 \
      --backend cuda-decode,cublas-bf16 --mode w4a4 --ceilings measured --max-seconds 0.02 --json "$O/${b}_${q}.json"
    FP4GEMM_DECODE_A_QUANTIZE=$q step "${b}_${q}_down" 60 "$B/$b" bench -m 1,2,4,8,16 -n 6144 -k 768 \
      --backend cuda-decode,cublas-bf16 --mode w4a4 --ceilings measured --max-seconds 0.02 --json "$O/${b}_${q}_down.json"
  done
  # 3. w4a16 where the patch moved registers (ptxas: the 32-token wide instance 80 -> 84, which
  #    may leave 2 wide CTAs per SM instead of 3; the 16-token narrow and 8-token ones 80 -> 72).
  step "${b}_w4a16" 90 "$B/$b" bench -m 1,8,16,32 -n 16384,6144,4096 -k 6144 --backend cuda-decode,cublas-bf16 \
    --mode w4a16 --ceilings measured --max-seconds 0.02 --json "$O/${b}_w4a16.json"
done
