#!/usr/bin/env bash
# Stop 35's first call (an H200 wanted; whichever card comes is named in gpu.txt). Builds:
#   .carry/h   this stop's base, commit f9f4fc5 (`scripts/build_carry.sh .carry/h
#              fp4gemm_cli,decode_gemm_test,grouped_gemm_test,gpu_quantize_test fp4gemm
#              tests/cuda/decode_gemm_test tests/cuda/grouped_gemm_test tests/cuda/gpu_quantize_test`);
#   .carry/af  f9f4fc5 + the all-rows-real group loop (decode_gemm.cuh: where every token row of
#              the instance's MT blocks is below M, the loop's activation loads are not predicated,
#              so the zero fills of rows past M, 16 CS2R per group at 16 tokens, are not issued);
#   .carry/qi  f9f4fc5 + ../decode_quantizing_instances/quantizing_instances.patch.
# Call: run(command="bash bench/results/grouped_all_rows/run.sh", carry=[".carry/h", ".carry/af",
# ".carry/qi"]); files in $OUT/s35.tgz. Most wanted first; every step packs.
source scripts/device_prelude.sh s35 .carry/h .carry/af=af .carry/qi=qi || exit 1
gtests gpu_quantize_test:60 grouped_gemm_test_af:120 decode_gemm_test_af:150
step ceilings 40 "$B/fp4gemm" ceilings --json "$O/ceilings.json"
grouped() {  # LABEL BINARY N K TOKENS
  step "$1" 100 "$B/$2" bench --grouped --backend cuda-grouped,cublas-bf16-loop --experts 32 \
    --tokens-per-expert "$5" -n "$3" -k "$4" --mode w4a16,w4a4 --ceilings measured --max-seconds 0.02 \
    --json "$O/$1.json"
}
# 1. Issue 7's grid on this card (base), and the all-rows-real loop where it applies (8, 16 tokens).
grouped up_h fp4gemm 4096 6144 1,4,8,16
grouped up_af fp4gemm_af 4096 6144 8,16
grouped down_h fp4gemm 6144 2048 1,4,8,16
grouped down_af fp4gemm_af 6144 2048 8,16
# 2. cuda-decode at M = 8, 16 (full token blocks), base and all-rows-real, each beside cublas-bf16.
for b in fp4gemm fp4gemm_af; do
  step "decode_$b" 80 "$B/$b" bench -m 8,16 -n 16384,6144,4096 -k 6144 --backend cuda-decode,cublas-bf16 \
    --mode w4a16 --ceilings measured --max-seconds 0.02 --json "$O/decode_$b.json"
done
# 3. SASS of the grouped kernels (base and all-rows-real): the group loop's instruction mix.
for b in fp4gemm fp4gemm_af; do
  cuobjdump -sass "$B/$b" 2>/dev/null | awk '/Function : /{p = /grouped_gemm_kernel/} p' | xz -T0 > "$O/sass_grouped_$b.txt.xz"
done
echo "== sass ${SECONDS}s"; pack
# 4. ncu of the base grouped kernel at 8 tokens per expert (w4a16): issue, occupancy, stalls,
#    executed instructions by opcode.
timeout 90 "$NCU" --clock-control none -k regex:grouped_gemm -c 1 --section SpeedOfLight --section WarpStateStats \
  --section Occupancy --section LaunchStats --section InstructionStats --print-details all --metrics \
  dram__bytes_read.sum,smsp__inst_executed.sum,sm__inst_executed.avg.per_cycle_active,smsp__issue_active.avg.pct_of_peak_sustained_active \
  "$B/fp4gemm" bench --grouped --backend cuda-grouped --experts 32 --tokens-per-expert 8 -n 4096 -k 6144 \
  --mode w4a16 --max-seconds 0.01 > "$O/ncu_grouped_8.txt" 2>&1
echo "== ncu grouped 8 rc=$? ${SECONDS}s"
grep -E "Duration|DRAM Through|Issued|Achieved Occupancy|Theoretical Occ|Block Limit|inst_exec|issue_active|per_cycle" "$O/ncu_grouped_8.txt" | sed 's/^ *//' | head -20
pack
# 5. The quantizing instances (issue 4, w4a4 at M = 2..16 on the TP8 shapes): tests, then the
#    quantizer kernel (separate) against step 1q (kernel), base and patched, beside cublas-bf16.
gtests decode_gemm_test_qi:150
for b in fp4gemm fp4gemm_qi; do
  for q in separate kernel; do
    FP4GEMM_DECODE_A_QUANTIZE=$q step "qi_${b}_${q}" 60 "$B/$b" bench -m 1,2,4,8,16 -n 768,256 -k 6144 \
      --backend cuda-decode,cublas-bf16 --mode w4a4 --ceilings measured --max-seconds 0.02 --json "$O/qi_${b}_${q}.json"
  done
done
step qi_w4a16 80 "$B/fp4gemm_qi" bench -m 1,8,16,32 -n 16384,6144 -k 6144 --backend cuda-decode,cublas-bf16 \
  --mode w4a16 --ceilings measured --max-seconds 0.02 --json "$O/qi_w4a16.json"
