#!/usr/bin/env bash
# One call (RUN.md): cuda-grouped with the K-splits of its launch planned for experts / d experts,
# d = 1, 2, 4 (committed), 8, one process per build, each against the per-expert cublas-bf16 loop
# in the same process; GLM-5's gate_up experts under EP8 (32 x 4096 x 6144) at 1 and 16 tokens
# per expert. Step timeouts sum to 440 s. Build: build_carry.sh here. Call:
# run(command="bash bench/results/grouped_expert_share/run.sh", carry=[".carry/share"]); files in
# $OUT/share.tgz.
source scripts/device_prelude.sh share .carry/share || exit 1
step ceilings 40 "$B/fp4gemm_d4" ceilings --json "$O/ceilings.json"
G="--max-seconds 0.1 --ceilings $O/ceilings.json"
[ -f "$O/ceilings.json" ] || G="--max-seconds 0.1 --ceilings datasheet"
for d in 4 1 2 8; do
  step "grouped_d$d" 100 "$B/fp4gemm_d$d" bench --grouped --backend cuda-grouped,cublas-bf16-loop --experts 32 \
    --tokens-per-expert 1,16 -n 4096 -k 6144 --mode w4a16 $G --json "$O/grouped_d$d.json"
done
