#!/usr/bin/env bash
# Stop 38, call B (after run_a.sh, which measured cuda-wgmma v6 ahead of v4 and cuda-fp8-lossy v3
# behind v1): the grouped and decode benches of the fixed walk (with the read ceiling measured
# first), then correctness beyond the GPU tests for the kept patches: check's grid and the three
# compute-sanitizer tools on the candidate's changed kernels, ncu of v6, the GPU tests call A
# did not run.
# Call: run(command="bash bench/results/stop38_decide/run_b.sh", carry=[".carry/fin", ".carry/next"]);
# files in $OUT/s38b.tgz.
source scripts/device_prelude.sh s38b .carry/fin=fin .carry/next=next || exit 1
step ceilings 60 "$B/fp4gemm_fin" ceilings --json "$O/ceilings.json"
# 1. cuda-grouped (fixed walk) on GLM-5's EP8 experts at 8 and 16 tokens per expert, and
#    cuda-decode at M = 1..32, each build beside cuBLAS; the read ceiling measured first
#    (`fp4gemm ceilings`, cached in $O/cache for the benches).
for experts in "down 6144 2048" "up 4096 6144"; do
  read -r label n k <<< "$experts"
  for b in next fin; do
    step "${label}_$b" 90 "$B/fp4gemm_$b" bench --grouped --backend cuda-grouped,cublas-bf16-loop \
      --experts 32 --tokens-per-expert 8,16 -n "$n" -k "$k" --mode w4a16 --ceilings measured \
      --max-seconds 0.02 --json "$O/${label}_$b.json"
  done
done
for b in next fin; do
  step "decode_$b" 80 "$B/fp4gemm_$b" bench -m 1,8,16,32 -n 16384,6144,4096 -k 6144 \
    --backend cuda-decode,cublas-bf16 --mode w4a16 --ceilings measured --max-seconds 0.02 \
    --json "$O/decode_$b.json"
done
# 2. cuda-wgmma v6: check's grid, the three sanitizers; decode and grouped (fixed walk) sanitizers.
step check_wgmma 120 "$B/fp4gemm_next" check --backend cuda-wgmma
tail -n 2 "$O/check_wgmma.txt"
FW='AllCombos/WgmmaGemm.RandomOperandsWithinTheAccumulationBound/w4a16_nvfp4_linear_bf16:AllCombos/WgmmaGemm.RandomOperandsWithinTheAccumulationBound/w4a16_mxfp4_swizzled_f32:WgmmaGemmLarge.WideTokenTilesWithTails:WgmmaGemmLarge.SeveralUnitsPerCta'
for tool in racecheck synccheck memcheck; do
  sanitize "$tool" wgmma 90 "$B/wgmma_gemm_test_next" --gtest_filter="$FW"
done
sanitize memcheck decode 90 "$B/decode_gemm_test_next" \
  --gtest_filter='*EveryMFrom1To32/w4a16_nvfp4_linear_bf16:*AwkwardShapesAndSplitK/*swizzled_f32'
sanitize racecheck decode 90 "$B/decode_gemm_test_next" \
  --gtest_filter='*AwkwardShapesAndSplitK/w4a16_nvfp4_linear_f32:*AwkwardShapesAndSplitK/w4a4_mxfp4_swizzled_f32'
sanitize memcheck grouped 60 "$B/grouped_gemm_test_next" \
  --gtest_filter='AllCombos/GroupedGemm.BlockColumnsAndLongKSlices/w4a16_nvfp4_linear_f32:GroupedKernelOptions.AnExpertOverABoundBelowTheChunkIsReported'
# 3. Where v6's time goes at 4096 x 6144 x 6144 (issue 5 keeps one ncu summary of it).
timeout 90 "$NCU" --clock-control none -k regex:wgmma_gemm -c 1 --section SpeedOfLight \
  --section WarpStateStats --section ComputeWorkloadAnalysis \
  "$B/fp4gemm_next" run --backend cuda-wgmma -m 4096 -n 6144 -k 6144 --calls 2 > "$O/ncu_wgmma.txt" 2>&1
echo "== ncu wgmma rc=$? ${SECONDS}s"
grep -E "Duration|highest-utilized|Issue Slots Busy|Issued Warp|Eligible" "$O/ncu_wgmma.txt" | sed 's/^ *//' | head -10
pack
# 4. The GPU tests call A did not run (the candidate holds stop 37's landed fixes; call A ran its
#    wgmma, fp8, grouped, decode, auto, dequant, mma and quantizer tests), then v6 / v4 at w4a4.
gtests timing_harness_test_next:60 baselines_test_next:60 ceilings_probe_test_next:60 plan_measure_gpu_test_next:90
for b in next fin; do
  step "wgmma_w4a4_$b" 30 "$B/fp4gemm_$b" bench -m 1024,4096 -n 6144 -k 6144 --mode w4a4 \
    --backend cuda-wgmma,cublas-bf16 --max-seconds 0.05 --ceilings datasheet --json "$O/wgmma_w4a4_$b.json"
done
