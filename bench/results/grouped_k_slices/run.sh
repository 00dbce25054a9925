#!/usr/bin/env bash
# Two changes against commit 0e5360b, each measured beside cuBLAS in its process:
#  (a) K-slices rebalanced (decode_gemm.cu balanced_k_slices): cuda-grouped on GLM-5's gate_up
#      experts under EP8 (32 x 4096 x 6144) at 4 and 8 tokens per expert was cut 47 + 1 and
#      23 + 23 + 2 groups (ncu, ../w4a4_small_split: 3 CTAs per SM at 4 tokens, 12 warps, DRAM
#      72.5 %); now 24 + 24 and 3 x 16.
#  (b) the w4a4 quantizer kernel spreads a scale block over 4 lanes of 4 elements where the lanes
#      fit one wave (quantize_kernel.cuh E = 4): at 16 x 6144 each lane had 16 IEEE divisions in
#      series and the kernel took ~4.9 us under ncu whatever its size.
# Builds: .carry/v34 (0e5360b: fp4gemm, as fp4gemm_base) and .carry/v35 (this tree: fp4gemm,
# decode_gemm_test, grouped_gemm_test, gpu_quantize_test), each by scripts/build_carry.sh.
# Call: run(command="bash bench/results/grouped_k_slices/run.sh", carry=[".carry/v34", ".carry/v35"]);
# files in $OUT/s34_slices.tgz.
source scripts/device_prelude.sh s34_slices .carry/v34=base .carry/v35 || exit 1
gtests decode_gemm_test:150 grouped_gemm_test:90 gpu_quantize_test:120
step ceilings 120 "$B/fp4gemm" ceilings --json "$O/ceilings.json"
for b in fp4gemm_base fp4gemm; do
  # (a) beside the per-expert cublas-bf16 loop.
  step "${b}_up" 120 "$B/$b" bench --grouped --backend cuda-grouped,cublas-bf16-loop --experts 32 \
    --tokens-per-expert 4,8 -n 4096 -k 6144 --mode w4a16,w4a4 --ceilings measured --max-seconds 0.03 \
    --json "$O/${b}_up.json"
  # (b) beside cublas-bf16 (M = 1 at N <= 4096 quantizes inside the GEMM, unchanged).
  step "${b}_decode" 90 "$B/$b" bench -m 2,16 -n 768,256,6144 -k 6144 --backend cuda-decode,cublas-bf16 \
    --mode w4a4,w4a16 --ceilings measured --max-seconds 0.03 --json "$O/${b}_decode.json"
  step "${b}_decode_down" 60 "$B/$b" bench -m 2,16 -n 6144 -k 768 --backend cuda-decode,cublas-bf16 \
    --mode w4a4,w4a16 --ceilings measured --max-seconds 0.03 --json "$O/${b}_decode_down.json"
done
# (a') more slices than the rule's (5 CTAs per SM at 4 tokens with 24-group slices).
for s in 3 4 6; do
  FP4GEMM_DECODE_K_SLICES=$s step "slices_${s}" 60 "$B/fp4gemm" bench --grouped --backend cuda-grouped \
    --experts 32 --tokens-per-expert 4,8 -n 4096 -k 6144 --mode w4a16 --ceilings measured \
    --max-seconds 0.03 --json "$O/slices_${s}.json"
done
# (b') the quantizer kernel alone under ncu at 16 x 6144, both builds; then the new one's warp
# states and stall samples per SASS instruction.
for b in fp4gemm_base fp4gemm; do
  timeout 40 "$NCU" --clock-control none -k regex:quantize_kernel --metrics gpu__time_duration.sum,launch__grid_size \
    "$B/$b" run --backend cuda-decode -m 16 -n 6144 -k 6144 --mode w4a4 --calls 3 > "$O/ncu_quantize_$b.txt" 2>&1
  echo "== ncu quantize $b rc=$? ${SECONDS}s"
  grep -E "gpu__time_duration|launch__grid_size" "$O/ncu_quantize_$b.txt" | sed 's/^ *//'
done
timeout 60 "$NCU" --clock-control none -k regex:quantize_kernel -c 1 --section WarpStateStats --section SourceCounters \
  -o "$O/quantize" "$B/fp4gemm" run --backend cuda-decode -m 16 -n 6144 -k 6144 --mode w4a4 --calls 2 \
  > "$O/ncu_quantize_sources.txt" 2>&1
timeout 40 "$NCU" --import "$O/quantize.ncu-rep" --page source --print-source sass --csv > "$O/quantize_sass.csv" 2>&1
echo "== ncu quantize sources rc=$? ${SECONDS}s"
pack
# Issue 7's gate_up row on this build (as ../grouped_a_dequant/status.sh), if time is left.
if [ "$SECONDS" -lt 420 ]; then
  step grid_up 150 "$B/fp4gemm" bench --grouped --backend cuda-grouped,cublas-bf16-loop --experts 32 \
    --tokens-per-expert 1,4,8,16 -n 4096 -k 6144 --mode w4a16,w4a4 --ceilings measured --max-seconds 0.03 \
    --json "$O/grid_up.json"
fi
