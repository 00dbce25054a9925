#!/usr/bin/env bash
# Call 2 (RUN.md): the committed divisor (2) through grouped_gemm_test, and GLM-5's two expert
# GEMMs under EP8 (32 x 4096 x 6144 gate_up, 32 x 6144 x 2048 down) at 1 and 16 tokens per expert
# against the per-expert cublas-bf16 loop in the same process. Step timeouts sum to 300 s. Build:
# `cmake --build build-h200 --target fp4gemm_cli grouped_gemm_test`, both xz'd into .carry/grouped.
# (GROUPED_SHAPES=4096:6144 keeps the first shape only.) Call:
# run(command="bash bench/results/grouped_expert_share/run_committed.sh",
# carry=[".carry/grouped"]); files in $OUT/grouped.tgz (unpacked into committed/).
source scripts/device_prelude.sh grouped .carry/grouped || exit 1
timeout 60 "$B/grouped_gemm_test" > "$O/grouped_gemm_test.log" 2>&1
echo "grouped_gemm_test rc=$? ${SECONDS}s $(summary "$O/grouped_gemm_test.log")"; pack
step ceilings 40 "$B/fp4gemm" ceilings --json "$O/ceilings.json"
G="--max-seconds 0.1 --ceilings $O/ceilings.json"
[ -f "$O/ceilings.json" ] || G="--max-seconds 0.1 --ceilings datasheet"
for nk in ${GROUPED_SHAPES:-4096:6144 6144:2048}; do
  step "grouped_${nk%%:*}x${nk#*:}" 100 "$B/fp4gemm" bench --grouped --backend cuda-grouped,cublas-bf16-loop \
    --experts 32 --tokens-per-expert 1,16 -n "${nk%%:*}" -k "${nk#*:}" --mode w4a16 $G \
    --json "$O/grouped_${nk%%:*}x${nk#*:}.json"
done
