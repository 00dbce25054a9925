#!/usr/bin/env bash
# A shorter call than run.sh (RUN.md: neither ran; the session's device time ran out): GLM-5's
# gate_up experts (32 x 4096 x 6144) at 16 tokens w4a4 and w4a16 and at 1 token, head then this
# tree, each beside the per-expert cublas-bf16 loop; then grouped_gemm_test's kernel options and
# w4a4 cases of this tree.
# Build: as run.sh.
# Call: run(command="bash bench/results/grouped_own_occupancy/run2.sh", carry=[".carry/occ",
# ".carry/head"], timeout_s=200); files in $OUT/occ.tgz.
source scripts/device_prelude.sh occ .carry/occ .carry/head=head || exit 1
G="--max-seconds 0.02 --ceilings datasheet"
for run in 16:w4a4 16:w4a16 1:w4a16; do
  t=${run%%:*} mode=${run#*:}
  for b in fp4gemm_head fp4gemm; do
    step "${b}_up_${t}_${mode}" 30 "$B/$b" bench --grouped --backend cuda-grouped,cublas-bf16-loop --experts 32 \
      --tokens-per-expert "$t" -n 4096 -k 6144 --mode "$mode" $G --json "$O/${b}_up_${t}_${mode}.json"
  done
done
timeout 120 "$B/grouped_gemm_test" --gtest_filter='GroupedKernelOptions.*:*w4a4*' > "$O/grouped_gemm_test.log" 2>&1
echo "grouped_gemm_test rc=$? ${SECONDS}s $(summary "$O/grouped_gemm_test.log")"
grep -m3 -A6 "Failure" "$O/grouped_gemm_test.log" | head -14
pack
