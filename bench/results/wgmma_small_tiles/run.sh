#!/usr/bin/env bash
# cuda-wgmma's 32- and 64-token tiles (stop 39, src/cuda/notes_wgmma.md "v7") at decode sizes,
# forced by FP4GEMM_WGMMA_BM, beside cuda-decode and cublas-bf16 in each process, on issue 4's
# four shapes and one TP8 shape, M = 1..64; then their GPU tests, `check` with each tile forced and the
# three sanitizers.
# Build: .carry/land from the stop 39 tree (../stop38_decide/run_d.sh's target list).
# Call: run(command="bash bench/results/wgmma_small_tiles/run.sh", carry=[".carry/land"]);
# files in $OUT/small_tiles.tgz. About 300 s on an H100. Most wanted first; every step packs.
source scripts/device_prelude.sh small_tiles .carry/land || exit 1
step ceilings 60 "$B/fp4gemm" ceilings --json "$O/ceilings.json"  # cached for --ceilings measured
G="--mode w4a16 --max-seconds 0.02 --ceilings measured"
for shape in "16384 6144" "6144 6144" "4096 6144" "6144 2048" "768 6144"; do
  read -r n k <<< "$shape"
  for bm in 32 64; do
    FP4GEMM_WGMMA_BM=$bm step "n${n}_k${k}_bm$bm" 60 "$B/fp4gemm" bench -m 1,8,16,32,64 -n "$n" -k "$k" $G \
      --backend cuda-wgmma,cuda-decode,cublas-bf16 --json "$O/n${n}_k${k}_bm$bm.json"
  done
done
gtests wgmma_gemm_test:90
for bm in 32 64; do  # check's grid with the tile forced
  FP4GEMM_WGMMA_BM=$bm step "check_bm$bm" 90 "$B/fp4gemm" check --backend cuda-wgmma
  tail -n 2 "$O/check_bm$bm.txt"
done
SMALL='AllCombos/WgmmaGemmSmallTiles.RandomAndBitExact/w4a16_nvfp4_linear_bf16_bm32:AllCombos/WgmmaGemmSmallTiles.RandomAndBitExact/w4a4_mxfp4_swizzled_f32_bm64:WgmmaGemmLarge.SmallTilesSplitKSeveralUnitsPerCta'
for tool in racecheck synccheck memcheck; do
  sanitize "$tool" small_tiles 90 "$B/wgmma_gemm_test" --gtest_filter="$SMALL"
done
