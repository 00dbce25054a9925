#!/usr/bin/env bash
# Stop 36's first call. Builds (scripts/build_carry.sh DIR TARGETS FILES, targets fp4gemm_cli and
# every tests/cuda GPU test):
#   .carry/fin  the landed tree;
#   .carry/next that + the pending patches (this one, ../wgmma_v6_register_a/v6.patch and
#               ../fp8_turns/fp8_turns.patch: ../fp8_turns/RUN.md has the build commands; they
#               touch different kernels), unpacked with the suffix _fw. The fixed walk
#               (decode_gemm.cuh stage_activations: thread t stages chunks t, t + kThreads, ...
#               of every row, so both addresses advance by constants;
#               SASS here: the staging loop 405 -> 77 instructions per 8 chunks in cuda-grouped's
#               8-token instance, ~12 per chunk at 16 / 32 tokens; cuda-decode's 32-token wide
#               instance 84 -> 80 registers).
# Call: run(command="bash bench/results/fixed_walk/run.sh", carry=[".carry/fin", ".carry/next"]);
# files in $OUT/s36a.tgz. Most wanted first; every step packs (the read ceiling is measured by the
# first bench step and cached in $O/cache for the others).
source scripts/device_prelude.sh s36a .carry/fin=fin .carry/next=fw || exit 1
gtests grouped_gemm_test_fw:120
# 1. cuda-grouped on GLM-5's experts under EP8 (down 6144 x 2048, gate_up 4096 x 6144), w4a16, at
#    8 and 16 tokens per expert, each build beside the per-expert cublas-bf16 loop.
for experts in "down 6144 2048 90" "up 4096 6144 120"; do
  read -r label n k limit <<< "$experts"
  for b in fin fw; do
    step "${label}_$b" "$limit" "$B/fp4gemm_$b" bench --grouped --backend cuda-grouped,cublas-bf16-loop \
      --experts 32 --tokens-per-expert 8,16 -n "$n" -k "$k" --mode w4a16 --ceilings measured \
      --max-seconds 0.02 --json "$O/${label}_$b.json"
  done
done
gtests decode_gemm_test_fw:170
# 2. cuda-decode w4a16 (issue 4's shapes), landed and candidate, each beside cublas-bf16.
for b in fin fw; do
  step "decode_$b" 80 "$B/fp4gemm_$b" bench -m 1,8,16,32 -n 16384,6144,4096 -k 6144 --backend cuda-decode,cublas-bf16 \
    --mode w4a16 --ceilings measured --max-seconds 0.02 --json "$O/decode_$b.json"
done
# 3. Sanitizers on the staging paths (the other GPU tests run in the next call, on the tree with
#    this change and cuda-wgmma v6: ../wgmma_v6_register_a/run.sh).
sanitize memcheck decode 90 "$B/decode_gemm_test_fw" \
  --gtest_filter='*EveryMFrom1To32/w4a16_nvfp4_linear_bf16:*AwkwardShapesAndSplitK/*swizzled_f32'
sanitize racecheck decode 90 "$B/decode_gemm_test_fw" \
  --gtest_filter='*AwkwardShapesAndSplitK/w4a16_nvfp4_linear_f32:*AwkwardShapesAndSplitK/w4a4_mxfp4_swizzled_f32'
sanitize memcheck grouped_long 60 "$B/grouped_gemm_test_fw" \
  --gtest_filter='AllCombos/GroupedGemm.BlockColumnsAndLongKSlices/w4a16_nvfp4_linear_f32'
