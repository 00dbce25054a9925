#!/usr/bin/env bash
# Stop 38, call C: auto's sm_90 table re-measured on the candidate (cuda-wgmma v6 + the fixed walk;
# fp8_turns.patch in it changes only cuda-fp8-lossy, which auto never picks): every kernel auto
# may pick, on issue 5's four shapes, M = 1..8192. One bench process per shape and M range, so the
# kernels of a row pair ran in the same process.
# Call: run(command="bash bench/results/stop38_decide/run_c.sh", carry=[".carry/next"]);
# files in $OUT/s38c.tgz.
source scripts/device_prelude.sh s38c .carry/next=next || exit 1
G="--mode w4a16 --max-seconds 0.02 --ceilings datasheet"
for shape in "6144 6144" "16384 6144" "4096 6144" "6144 2048"; do
  read -r n k <<< "$shape"
  step "small_${n}x$k" 60 "$B/fp4gemm_next" bench -m 1,2,4,8,16,32 -n "$n" -k "$k" $G \
    --backend cuda-decode,cuda-mma,cuda-wgmma --json "$O/small_${n}x$k.json"
  step "large_${n}x$k" 120 "$B/fp4gemm_next" bench -m 33,64,128,256,512,1024,2048,4096,8192 -n "$n" -k "$k" $G \
    --backend cuda-mma,cuda-wgmma,cuda-dequant-cublas --json "$O/large_${n}x$k.json"
done
