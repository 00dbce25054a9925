#!/usr/bin/env bash
# The call that measures cuda-wgmma's plan alternatives (src/cuda/notes_wgmma.md, "Open"): each
# token tile and K-split count forced by FP4GEMM_WGMMA_BM / FP4GEMM_WGMMA_SPLITS, one process per
# (shape, forced config) over several M, on issue 5's four shapes; the model's own choice
# (`auto auto`) beside cublas-bf16. From these times: the cost of a 128- and a 256-token K-tile, a
# tile's fixed cost (epilogue, pipeline fill) and the split-K reduction's, for `choose`.
# Build (the tree with the switches, stop 38's final commit or later):
#   T=fp4gemm_cli,wgmma_gemm_test
#   scripts/build_carry.sh .carry/land $T fp4gemm tests/cuda/wgmma_gemm_test
#   (or the full target list of ../fp8_turns/RUN.md, which ../stop38_decide/run_d.sh needs too)
# Call: run(command="bash bench/results/wgmma_choose/run.sh", carry=[".carry/land"]);
# files in $OUT/wgmma_choose.tgz. About 200 s on an H100 (20 processes).
source scripts/device_prelude.sh wgmma_choose .carry/land || exit 1
gtests wgmma_gemm_test:60
G="--mode w4a16 --max-seconds 0.02 --ceilings datasheet"
for shape in "6144 6144" "16384 6144" "4096 6144" "6144 2048"; do
  read -r n k <<< "$shape"
  # config: BM SPLITS M-list (split-K only where it can pay: M <= 1024)
  while read -r bm splits ms; do
    backends=cuda-wgmma
    [ "$bm" = auto ] && backends=cuda-wgmma,cublas-bf16
    FP4GEMM_WGMMA_BM=$bm FP4GEMM_WGMMA_SPLITS=$splits step "n${n}_k${k}_bm${bm}_s${splits}" 60 \
      "$B/fp4gemm" bench -m "$ms" -n "$n" -k "$k" $G --backend "$backends" \
      --json "$O/n${n}_k${k}_bm${bm}_s${splits}.json"
  done <<'CONFIGS'
auto auto 33,128,256,512,1024,4096,8192
256 auto 33,128,256,512,1024,4096,8192
128 1 33,128,256,512,1024,4096,8192
128 2 33,128,256,512,1024
128 4 33,128,256,512
CONFIGS
done
