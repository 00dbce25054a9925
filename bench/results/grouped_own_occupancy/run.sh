#!/usr/bin/env bash
# One call (RUN.md): cuda-grouped's kernel bounded to 24 warps per SM by registers
# (grouped_gemm.cuh: min_ctas_per_sm) and planned with its own occupancy (KernelOccupancy), judged
# in the same call against the tree without own_occupancy.patch (.carry/head). Steps in order of need, each packs.
#  1. grouped_gemm_test of this tree.
#  2. GLM-5's gate_up experts under EP8 (32 experts, 4096 x 6144) at 16, 32 and 1 tokens per
#     expert, w4a16 and w4a4, head then this tree, each beside the per-expert cublas-bf16 loop in
#     its process.
#  3. decode_gemm_test of this tree (the planner's occupancy now comes through KernelOccupancy);
#     the down experts (6144 x 2048) at 16 tokens; cuda-decode at 1, 16, 32 x 16384 x 6144 (its
#     plans are unchanged: a check).
#  4. ncu of cuda-wgmma 4096 x 6144 x 6144 w4a16 (issue 5: where v4's K-tile goes; the tree's
#     wgmma kernel is the same in both builds).
#  5. compute-sanitizer memcheck on grouped_gemm_test's kernel options.
# Build: with own_occupancy.patch applied (since in the tree, RUN.md), scripts/build_carry.sh .carry/occ
# fp4gemm_cli,decode_gemm_test,grouped_gemm_test fp4gemm tests/cuda/decode_gemm_test
# tests/cuda/grouped_gemm_test; .carry/head: the same targets without it (packed as *.xz).
# Call: run(command="bash bench/results/grouped_own_occupancy/run.sh", carry=[".carry/occ",
# ".carry/head"], timeout_s=600); files in $OUT/occ.tgz.
source scripts/device_prelude.sh occ .carry/occ .carry/head=head || exit 1
G="--max-seconds 0.03 --ceilings datasheet"
gtests grouped_gemm_test:150
for run in 16:w4a16 16:w4a4 1:w4a16 32:w4a16 32:w4a4; do
  t=${run%%:*} mode=${run#*:}
  for b in fp4gemm_head fp4gemm; do
    step "${b}_up_${t}_${mode}" 40 "$B/$b" bench --grouped --backend cuda-grouped,cublas-bf16-loop --experts 32 \
      --tokens-per-expert "$t" -n 4096 -k 6144 --mode "$mode" $G --json "$O/${b}_up_${t}_${mode}.json"
  done
done
gtests decode_gemm_test:150
for b in fp4gemm_head fp4gemm; do
  step "${b}_down_16" 40 "$B/$b" bench --grouped --backend cuda-grouped,cublas-bf16-loop --experts 32 \
    --tokens-per-expert 16 -n 6144 -k 2048 --mode w4a16 $G --json "$O/${b}_down_16.json"
  step "${b}_decode" 30 "$B/$b" bench -m 1,16,32 -n 16384 -k 6144 --mode w4a16 \
    --backend cuda-decode,cublas-bf16 $G --json "$O/${b}_decode.json"
done
timeout 90 "$NCU" --clock-control none -k regex:wgmma_gemm -c 1 --section SpeedOfLight \
  --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section SchedulerStats \
  --section WarpStateStats --section Occupancy --section LaunchStats --section InstructionStats \
  "$B/fp4gemm" run --backend cuda-wgmma -m 4096 -n 6144 -k 6144 --calls 2 > "$O/ncu_wgmma_4096x6144x6144.txt" 2>&1
echo "ncu wgmma rc=$? ${SECONDS}s"
grep -E "^ +(Duration|DRAM Throughput|Compute \(SM\) Throughput|Memory Throughput|Issue Slots Busy|Issued Warp Per Scheduler|Eligible Warps Per Scheduler|Active Warps Per Scheduler|No Eligible|Registers Per Thread|Shared Memory Throughput|L2 Hit Rate|Executed Ipc Active)" "$O/ncu_wgmma_4096x6144x6144.txt" | head -16
pack
sanitize memcheck options 90 "$B/grouped_gemm_test" --gtest_filter='GroupedKernelOptions.*'
