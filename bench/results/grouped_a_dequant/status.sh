#!/usr/bin/env bash
# The third call (RUN.md): issue 7's target grid on the adopted tree (.carry/v33, verify.sh's
# build): cuda-grouped beside the per-expert cublas-bf16 loop on GLM-5's experts under EP8 (32
# experts; gate_up 4096 x 6144, down 6144 x 2048) at 1, 4, 8 and 16 tokens per expert, balanced,
# w4a16 and w4a4, against the read-bandwidth ceiling measured first in the same call
# (`fp4gemm ceilings`, cached in $FP4GEMM_CACHE_DIR, then `--ceilings measured`).
# Call: run(command="bash bench/results/grouped_a_dequant/status.sh", carry=[".carry/v33"]);
# files in $OUT/s33_status.tgz.
source scripts/device_prelude.sh s33_status .carry/v33 || exit 1
step ceilings 120 "$B/fp4gemm" ceilings --json "$O/ceilings.json"
for shape in "4096 6144" "6144 2048"; do
  set -- $shape
  step "grouped_${1}x${2}" 240 "$B/fp4gemm" bench --grouped --backend cuda-grouped,cublas-bf16-loop \
    --experts 32 --tokens-per-expert 1,4,8,16 -n "$1" -k "$2" --mode w4a16,w4a4 --ceilings measured \
    --max-seconds 0.03 --json "$O/grouped_${1}x${2}.json"
done
