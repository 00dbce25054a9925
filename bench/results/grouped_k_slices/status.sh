#!/usr/bin/env bash
# Issue 7's target grid on this tree (.carry/v35, run.sh's build; its GPU tests passed in run.sh's
# call): cuda-grouped beside the per-expert cublas-bf16 loop on GLM-5's experts under EP8 (32
# experts; gate_up 4096 x 6144, down 6144 x 2048) at 1, 4, 8 and 16 tokens per expert, balanced,
# w4a16 and w4a4, against the read-bandwidth ceiling measured first in the same call; on whichever
# card comes (stop 33's grid, ../grouped_a_dequant/status, ran on an H100). Most wanted first (the
# gate_up points run.sh's call did not time), each step packed, so a short call still returns them.
# Also gpu_quantize_test as rearranged after run.sh's call (.carry/v35q: `scripts/build_carry.sh
# .carry/v35q gpu_quantize_test tests/cuda/gpu_quantize_test`; the lane-width cases merged into
# WritesTheBlockValuesOfItsCodes).
# Call: run(command="bash bench/results/grouped_k_slices/status.sh", carry=[".carry/v35", ".carry/v35q"]);
# files in $OUT/s34_status.tgz.
source scripts/device_prelude.sh s34_status .carry/v35 .carry/v35q=q || exit 1
gtests gpu_quantize_test_q:60
step ceilings 40 "$B/fp4gemm" ceilings --json "$O/ceilings.json"
grid() {  # LABEL N K TOKENS
  step "$1" 110 "$B/fp4gemm" bench --grouped --backend cuda-grouped,cublas-bf16-loop --experts 32 \
    --tokens-per-expert "$4" -n "$2" -k "$3" --mode w4a16,w4a4 --ceilings measured --max-seconds 0.02 \
    --json "$O/$1.json"
}
grid up_1_16 4096 6144 1,16
grid down 6144 2048 1,4,8,16
grid up_4_8 4096 6144 4,8
