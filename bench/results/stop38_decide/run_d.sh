#!/usr/bin/env bash
# Stop 38, call D (NOT RUN: no device time was left): the tree that landed in stop 38 (its final
# commit: 69d2e23 + fixed_walk.patch + v6.patch + auto's sm_90 table from call C + cuda-wgmma's
# plan switches), built as .carry/land with ../fp8_turns/RUN.md's target list: the GPU tests of
# what differs from call A's build (auto's table, cuda-wgmma, cuda-fp8-lossy back to v1),
# `--explain`, `check --backend auto`, then auto beside the four kernels it may pick on two of
# issue 5's shapes. About 150 s.
# Call: run(command="bash bench/results/stop38_decide/run_d.sh", carry=[".carry/land"]);
# files in $OUT/s38d.tgz. Most wanted first; every step packs.
source scripts/device_prelude.sh s38d .carry/land || exit 1
gtests auto_backend_test:30 wgmma_gemm_test:30 fp8_gemm_test:30
step explain 30 "$B/fp4gemm" bench --explain -m 1,64,512,8192 -n 6144 -k 6144 --mode w4a16 \
  --backend auto,cublas-bf16 --max-seconds 0.02 --ceilings datasheet --json "$O/explain.json"
grep -A1 "^auto" "$O/explain.txt" | head -8
step check_auto 40 "$B/fp4gemm" check --backend auto
tail -n 2 "$O/check_auto.txt"
G="--mode w4a16 --max-seconds 0.02 --ceilings datasheet"
for shape in "6144 2048" "6144 6144"; do
  read -r n k <<< "$shape"
  step "auto_${n}x$k" 30 "$B/fp4gemm" bench -m 1,32,64,256,512,1024,8192 -n "$n" -k "$k" $G \
    --backend auto,cuda-decode,cuda-mma,cuda-wgmma,cuda-dequant-cublas --json "$O/auto_${n}x$k.json"
done
