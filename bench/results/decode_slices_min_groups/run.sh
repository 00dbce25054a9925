#!/usr/bin/env bash
# One call (RUN.md): the K-slice count by waves with a minimum slice (decode_gemm.hpp
# k_slices_by_waves, kMinSliceGroups16 / 32) and the batched A staging, judged in the same call
# against 99bd833 (.carry/base) on issue 4's shapes. Steps in order of need, each packs.
#  1. decode_gemm_test and grouped_gemm_test of this tree.
#  2. w4a16 beside cublas-bf16 in each process, base then this tree: M = 1, 16, 32 x N = 16384,
#     6144, 4096 x K = 6144; M = 1, 16, 32 x 6144 x 2048; the TP8 shapes at M = 1, 16 (768, 512,
#     256 x 6144; 6144 x 768).
#  3. GLM-5's gate_up experts grouped (32 x 16 tokens, 4096 x 6144) beside the per-expert
#     cublas-bf16 loop, base then this tree.
# Build: build_carry.sh. Call: run(command="bash bench/results/decode_slices_min_groups/run.sh",
# carry=[".carry/s4", ".carry/base"], timeout_s=600); files in $OUT/s4.tgz.
source scripts/device_prelude.sh s4 .carry/s4 .carry/base=base || exit 1
G="--max-seconds 0.05 --ceilings datasheet"
gtests decode_gemm_test:130 grouped_gemm_test:130
shape_sets=("issue 60 -m 1,16,32 -n 16384,6144,4096 -k 6144" "narrow_k 30 -m 1,16,32 -n 6144 -k 2048"
            "tp8 40 -m 1,16 -n 768,512,256 -k 6144" "tp8_down 20 -m 1,16 -n 6144 -k 768")
for b in fp4gemm_base fp4gemm; do
  for spec in "${shape_sets[@]}"; do
    read -r label limit shapes <<< "$spec"
    step "${b}_$label" "$limit" "$B/$b" bench $shapes --mode w4a16 --backend cuda-decode,cublas-bf16 $G \
      --json "$O/${b}_$label.json"
  done
done
for b in fp4gemm_base fp4gemm; do
  step "${b}_grouped" 45 "$B/$b" bench --grouped --backend cuda-grouped,cublas-bf16-loop --experts 32 \
    --tokens-per-expert 16 -n 4096 -k 6144 --mode w4a16 $G --json "$O/${b}_grouped.json"
done
