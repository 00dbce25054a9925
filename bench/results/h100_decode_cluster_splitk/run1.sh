#!/usr/bin/env bash
# Ran on 2026-12-05 on an H100 (RUN.md has the results). Call 1 of 3 (RUN.md: how to build the carried
# binaries): the weight stream alone, then correctness of everything that changed. Step timeouts
# sum to 550 s. Call: run(command="bash bench/results/h100_decode_cluster_splitk/run1.sh",
# carry=[".carry/v11"]); files in $OUT/v11c1.tgz.
source scripts/device_prelude.sh v11c1 .carry/v11 || exit 1

# 0. The weight stream alone (bench/decode_stream_probe.cu): cuda-decode's M = 1 grids with no
#    compute, cp.async against bulk copies, row- against group-major tiles, 4 against 8 stages;
#    then with 300 and 600 cycles of stand-in work per group.
step stream_probe 60 "$B/decode_stream_probe" --work 0 300 600 --ceiling-gbs 4605 --json "$O/stream_probe.json"
cat "$O/stream_probe.txt"

# 1. The GPU tests of every kernel whose code changed: decode (step 4', DecodeGemmSplitSums.*),
#    grouped (the dependent launch, the shared store code), wgmma and mma (the shared split-K
#    handshake).
for t in decode_gemm_test:120 grouped_gemm_test:100 wgmma_gemm_test:90 mma_gemm_test:90; do
  timeout "${t#*:}" "$B/${t%%:*}" > "$O/${t%%:*}.log" 2>&1
  echo "${t%%:*} rc=$? ${SECONDS}s $(summary "$O/${t%%:*}.log")"
  grep -m3 -A6 "Failure" "$O/${t%%:*}.log" | head -14
  pack
done

# 2. The check grid through the switch.
FP4GEMM_DECODE_SPLIT_SUMS=cluster step check_cluster 90 "$B/fp4gemm" check --backend cuda-decode
tail -2 "$O/check_cluster.txt"
