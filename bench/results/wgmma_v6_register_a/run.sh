#!/usr/bin/env bash
# The call that decides cuda-wgmma v6 (register A: each consumer lane rebuilds its own wgmma A
# fragments from fragment-ordered placed codes, two register sets, no shared-memory stores, proxy
# fence or warpgroup barrier; notes_wgmma.md v6) beside v4 (the landed tree) and cublas-bf16.
# Builds (scripts/build_carry.sh DIR TARGETS FILES, targets fp4gemm_cli and every tests/cuda GPU
# test):
#   .carry/fin   the landed tree (cuda-wgmma v4);
#   .carry/next  that + the pending patches (../fixed_walk, this one, ../fp8_turns; the commands
#                are in ../fp8_turns/RUN.md), unpacked with the suffix _v6, so that the last
#                step tests the tree that adopting them would land.
# Call: run(command="bash bench/results/wgmma_v6_register_a/run.sh", carry=[".carry/fin", ".carry/next"]);
# files in $OUT/s37b.tgz. Most wanted first; every step packs.
source scripts/device_prelude.sh s37b .carry/fin=fin .carry/next=v6 || exit 1
gtests wgmma_gemm_test_v6:90 wgmma_gemm_test_fin:90
G="--max-seconds 0.05 --ceilings datasheet"
# 1. Each build's cuda-wgmma beside cublas-bf16 in one process (v6 also beside cuda-dequant-cublas,
#    auto's pick for M >= 256 on sm_90).
step wgmma_v6 60 "$B/fp4gemm_v6" bench -m 256,1024,4096 -n 6144 -k 6144,2048 --mode w4a16 \
  --backend cuda-wgmma,cuda-dequant-cublas,cublas-bf16 $G --json "$O/wgmma_v6.json"
step wgmma_fin 45 "$B/fp4gemm_fin" bench -m 256,1024,4096 -n 6144 -k 6144,2048 --mode w4a16 \
  --backend cuda-wgmma,cublas-bf16 $G --json "$O/wgmma_fin.json"
step wgmma_v6_16384 40 "$B/fp4gemm_v6" bench -m 1024,4096 -n 16384,4096 -k 6144 --mode w4a16 \
  --backend cuda-wgmma,cuda-dequant-cublas,cublas-bf16 $G --json "$O/wgmma_v6_16384.json"
# 2. Correctness beyond the GPU tests: check's grid, then the sanitizers on small and large shapes.
step check_wgmma_v6 90 "$B/fp4gemm_v6" check --backend cuda-wgmma
tail -n 2 "$O/check_wgmma_v6.txt"
FW='AllCombos/WgmmaGemm.RandomOperandsWithinTheAccumulationBound/w4a16_nvfp4_linear_bf16:AllCombos/WgmmaGemm.RandomOperandsWithinTheAccumulationBound/w4a16_mxfp4_swizzled_f32:WgmmaGemmLarge.WideTokenTilesWithTails:WgmmaGemmLarge.SeveralUnitsPerCta'
for tool in racecheck synccheck memcheck; do
  sanitize "$tool" wgmma 90 "$B/wgmma_gemm_test_v6" --gtest_filter="$FW"
done
for b in v6 fin; do
  step "wgmma_w4a4_$b" 30 "$B/fp4gemm_$b" bench -m 1024,4096 -n 6144 -k 6144 --mode w4a4 \
    --backend cuda-wgmma,cublas-bf16 $G --json "$O/wgmma_w4a4_$b.json"
done
# 3. Where v6's K-tile goes: tensor-pipe and issue shares, stall reasons (4096 x 6144 x 6144).
timeout 90 "$NCU" --clock-control none -k regex:wgmma_gemm -c 1 --section SpeedOfLight \
  --section WarpStateStats --section ComputeWorkloadAnalysis \
  "$B/fp4gemm_v6" run --backend cuda-wgmma -m 4096 -n 6144 -k 6144 --calls 2 > "$O/ncu_wgmma_v6.txt" 2>&1
echo "== ncu wgmma v6 rc=$? ${SECONDS}s"
grep -E "Duration|highest-utilized|Issue Slots Busy|Stall|Issued Warp|Eligible" "$O/ncu_wgmma_v6.txt" | sed 's/^ *//' | head -20
pack
# 4. The rest of the combined tree's GPU tests.
gtests auto_backend_test_v6:120 decode_gemm_test_v6:170 grouped_gemm_test_v6:120 dequant_cublas_test_v6:90 \
  mma_gemm_test_v6:90 gpu_quantize_test_v6:60
