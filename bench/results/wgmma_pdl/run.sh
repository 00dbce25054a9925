#!/usr/bin/env bash
# cuda-wgmma as a programmatic dependent launch (pdl.patch, stop 39; RUN.md): its GPU tests and
# two sanitizers, then each build in its own process beside cublas-bf16 on one-wave and
# several-wave plans.
# Build (from the repository root, the tree at the commit that added this folder):
#   T=fp4gemm_cli,wgmma_gemm_test; F="fp4gemm tests/cuda/wgmma_gemm_test"
#   scripts/build_carry.sh .carry/land $T $F      (or ../stop38_decide/run_d.sh's full list)
#   git apply bench/results/wgmma_pdl/pdl.patch && scripts/build_carry.sh .carry/pdl $T $F
#   git checkout src/cuda
# Call: run(command="bash bench/results/wgmma_pdl/run.sh", carry=[".carry/land", ".carry/pdl"]);
# files in $OUT/wgmma_pdl.tgz. About 150 s on an H100.
source scripts/device_prelude.sh wgmma_pdl .carry/land=land .carry/pdl=pdl || exit 1
gtests wgmma_gemm_test_pdl:90
FW='AllCombos/WgmmaGemm.RandomOperandsWithinTheAccumulationBound/w4a16_nvfp4_linear_bf16:WgmmaGemmLarge.SeveralUnitsPerCta:WgmmaGemmLarge.SmallTilesSplitKSeveralUnitsPerCta'
for tool in racecheck synccheck; do
  sanitize "$tool" pdl 90 "$B/wgmma_gemm_test_pdl" --gtest_filter="$FW"
done
G="--mode w4a16 --max-seconds 0.02 --ceilings datasheet --backend cuda-wgmma,cublas-bf16"
for build in land pdl; do
  for shape in "6144 6144" "16384 6144" "6144 2048"; do
    read -r n k <<< "$shape"
    step "${build}_n${n}_k$k" 60 "$B/fp4gemm_$build" bench -m 1,32,128,256,1024,4096 -n "$n" -k "$k" $G \
      --json "$O/${build}_n${n}_k$k.json"
  done
done
