#!/usr/bin/env bash
# Stop 35's second call. Builds:
#   .carry/h   the base, commit f9f4fc5 (../grouped_all_rows/run.sh names its targets);
#   .carry/st  f9f4fc5 + ../decode_quantizing_instances/quantizing_instances.patch + the
#              all-rows-real group loop (../grouped_all_rows) + the staging walk (decode_gemm.cuh
#              ChunkWalk: A's chunks staged with constant address steps, ~50 -> ~15 instructions
#              per chunk) (`scripts/build_carry.sh .carry/st fp4gemm_cli,decode_gemm_test,grouped_gemm_test
#              fp4gemm tests/cuda/decode_gemm_test tests/cuda/grouped_gemm_test`).
# Call: run(command="bash bench/results/staging_walk/run.sh", carry=[".carry/h", ".carry/st"]);
# files in $OUT/s35b.tgz. Most wanted first; every step packs.
source scripts/device_prelude.sh s35b .carry/h .carry/st=st || exit 1
gtests grouped_gemm_test_st:120 decode_gemm_test_st:170
step ceilings 40 "$B/fp4gemm" ceilings --json "$O/ceilings.json"
# 1. cuda-grouped on GLM-5's gate_up experts (EP8: 32 x 4096 x 6144), w4a16, base and candidate,
#    each beside the per-expert cublas-bf16 loop in its own process (one weight draw per process).
for b in fp4gemm fp4gemm_st; do
  step "up_$b" 150 "$B/$b" bench --grouped --backend cuda-grouped,cublas-bf16-loop --experts 32 \
    --tokens-per-expert 4,8,16 -n 4096 -k 6144 --mode w4a16 --ceilings measured --max-seconds 0.02 \
    --json "$O/up_$b.json"
done
# 2. cuda-decode w4a16 (issue 4's shapes), base and candidate, each beside cublas-bf16.
for b in fp4gemm fp4gemm_st; do
  step "decode_$b" 80 "$B/$b" bench -m 1,8,16,32 -n 16384,6144,4096 -k 6144 --backend cuda-decode,cublas-bf16 \
    --mode w4a16 --ceilings measured --max-seconds 0.02 --json "$O/decode_$b.json"
done
# 3. w4a4 on the TP8 shapes: the quantizer kernel (separate) against step 1q (kernel) in the
#    candidate's quantizing instances, and the base's rule.
step w4a4_fp4gemm 60 "$B/fp4gemm" bench -m 1,2,4,8,16 -n 768,256 -k 6144 --backend cuda-decode,cublas-bf16 \
  --mode w4a4 --ceilings measured --max-seconds 0.02 --json "$O/w4a4_fp4gemm.json"
for q in separate kernel; do
  FP4GEMM_DECODE_A_QUANTIZE=$q step "w4a4_st_$q" 60 "$B/fp4gemm_st" bench -m 1,2,4,8,16 -n 768,256 -k 6144 \
    --backend cuda-decode,cublas-bf16 --mode w4a4 --ceilings measured --max-seconds 0.02 --json "$O/w4a4_st_$q.json"
done
# 4. The candidate's instruction count at 8 tokens per expert (base: 103.9 M warp instructions on
#    an H100, ../grouped_all_rows/ncu_grouped_8.txt).
timeout 60 "$NCU" --clock-control none -k regex:grouped_gemm -c 1 --section SpeedOfLight --section Occupancy \
  --metrics smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum \
  "$B/fp4gemm_st" bench --grouped --backend cuda-grouped --experts 32 --tokens-per-expert 8 -n 4096 -k 6144 \
  --mode w4a16 --max-seconds 0.01 > "$O/ncu_grouped_8_st.txt" 2>&1
echo "== ncu st rc=$? ${SECONDS}s"
grep -E "Duration|DRAM Through|inst_exec|issue_active|Registers|Achieved Occ" "$O/ncu_grouped_8_st.txt" | sed 's/^ *//'
pack
# 5. GLM-5's down experts (32 x 6144 x 2048), w4a16, base and candidate.
for b in fp4gemm fp4gemm_st; do
  step "down_$b" 100 "$B/$b" bench --grouped --backend cuda-grouped,cublas-bf16-loop --experts 32 \
    --tokens-per-expert 8,16 -n 6144 -k 2048 --mode w4a16 --ceilings measured --max-seconds 0.02 \
    --json "$O/down_$b.json"
done
