#!/usr/bin/env bash
# PLAN, NOT YET RUN (stops 20-21 had no GPU lent): cuda-decode v11, the K-slices of a tile summed
# in a thread-block cluster (FP4GEMM_DECODE_SPLIT_SUMS=cluster; src/cuda/notes_decode.md v11), and
# cuda-grouped as a programmatic dependent launch; cuda-wgmma's split-K handshake through
# last_to_arrive; and 8 warps per CTA. One call on the H200,
# ~8-9 minutes (every step packs its files, so a step cut by the limit keeps the earlier ones).
#
# Build here first (sm_90a only; the device has no Debian packages, fp4gemm links them statically):
#   cmake -S . -B build-h200 -G Ninja -DCMAKE_BUILD_TYPE=Release -DFP4GEMM_CUDA_ARCHITECTURES=90a-real
#   cmake --build build-h200 --target fp4gemm decode_gemm_test wgmma_gemm_test mma_gemm_test grouped_gemm_test decode_stream_probe
#   mkdir -p .carry/v11 && for f in fp4gemm bench/decode_stream_probe tests/cuda/{decode,wgmma,mma,grouped}_gemm_test; do
#     xz -T2 -c build-h200/$f > .carry/v11/$(basename $f).xz; done
# and, each built the same way in its own git worktree:
#   .carry/base/fp4gemm.xz   commit e31eea3 (stop 19's committed kernels), the baseline;
#   .carry/w8/{fp4gemm,decode_gemm_test}.xz   this commit with 8 warps per CTA (128 rows: half the A
#     re-reads at M = 16, notes_decode.md v10 "Next" (1)), made by
#     sed -i 's/inline constexpr int kWarps = 4;/inline constexpr int kWarps = 8;/' src/cuda/decode_gemm.cuh
# Call: run(command="bash bench/results/h200_decode_cluster_splitk/run1.sh",
#           carry=[".carry/v11", ".carry/base", ".carry/w8"]).
source scripts/device_prelude.sh v11 .carry/v11 .carry/base=base .carry/w8=w8 || exit 1
G="--max-seconds 0.1 --ceilings bench/results/h200_merged_verify/ceilings.json"

# 0. The weight stream alone (bench/decode_stream_probe.cu): cuda-decode's M = 1 grids with no
#    compute, cp.async against bulk copies, row- against group-major tiles, 4 against 8 stages;
#    then with 300 and 600 cycles of stand-in work per group.
timeout 60 "$B/decode_stream_probe" --work 0 300 600 --ceiling-gbs 4605 --json "$O/stream_probe.json" > "$O/stream_probe.txt" 2>&1
echo "== stream probe rc=$? ${SECONDS}s"; cat "$O/stream_probe.txt"; pack

# 1. Correctness first: the GPU tests of every kernel whose code changed (decode: step 4'; grouped:
#    the dependent launch and the shared store code; mma and wgmma: the shared split-K handshake).
for t in decode_gemm_test grouped_gemm_test wgmma_gemm_test mma_gemm_test; do
  timeout 150 "$B/$t" > "$O/$t.log" 2>&1
  echo "$t rc=$? ${SECONDS}s $(summary "$O/$t.log")"
  grep -m3 -A6 "Failure" "$O/$t.log" | head -14
  pack
done

# 2. Timing, one process per build / switch, the same shapes: the committed kernels, v11 with the
#    global sums (the cost of the added code), v11 with the cluster sums.
S="-m 1,16 -n 16384,6144,4096,768,512,256 -k 6144 --mode w4a16 --backend cuda-decode,cublas-bf16"
timeout 90 "$B/fp4gemm_base" bench $S $G --json "$O/w4a16_base.json" > "$O/w4a16_base.txt" 2>&1
echo "== w4a16 base rc=$? ${SECONDS}s"; rows "$O/w4a16_base.txt"; pack
for sums in global cluster; do
  FP4GEMM_DECODE_SPLIT_SUMS=$sums timeout 90 "$B/fp4gemm" bench $S $G --json "$O/w4a16_$sums.json" > "$O/w4a16_$sums.txt" 2>&1
  echo "== w4a16 $sums rc=$? ${SECONDS}s"; rows "$O/w4a16_$sums.txt"; pack
done
for sums in global cluster; do
  FP4GEMM_DECODE_SPLIT_SUMS=$sums timeout 60 "$B/fp4gemm" bench -m 1,16 -n 6144 -k 2048 --mode w4a16 --backend cuda-decode $G \
    --json "$O/k2048_$sums.json" > "$O/k2048_$sums.txt" 2>&1
  echo "== 6144x2048 $sums rc=$? ${SECONDS}s"; rows "$O/k2048_$sums.txt"
  FP4GEMM_DECODE_SPLIT_SUMS=$sums timeout 60 "$B/fp4gemm" bench -m 1,16 -n 16384,768 -k 6144 --mode w4a4 --backend cuda-decode $G \
    --json "$O/w4a4_$sums.json" > "$O/w4a4_$sums.txt" 2>&1
  echo "== w4a4 $sums rc=$? ${SECONDS}s"; rows "$O/w4a4_$sums.txt"; pack
done

# 2''. cuda-grouped (now a programmatic dependent launch that waits first; the same CTA code, without
#    step 4'; its registers moved, 48-80 from 54-88):
#    committed build against v11, 32 experts x 1 and 16 tokens.
for b in fp4gemm_base fp4gemm; do
  timeout 90 "$B/$b" bench --grouped --backend cuda-grouped --experts 32 --tokens-per-expert 1,16 -n 4096 -k 6144 \
    --mode w4a16 $G --json "$O/grouped_$b.json" > "$O/grouped_$b.txt" 2>&1
  echo "== grouped $b rc=$? ${SECONDS}s"; rows "$O/grouped_$b.txt"; pack
done

# 2'. The 8-warp variant: its split-K and awkward-shape tests, then the same w4a16 shapes, both sums.
timeout 100 "$B/decode_gemm_test_w8" --gtest_filter='*AwkwardShapes*:DecodeGemmSplitSums.*:DecodeGemmChain.*' > "$O/decode_gemm_test_w8.log" 2>&1
echo "decode_gemm_test_w8 rc=$? ${SECONDS}s $(summary "$O/decode_gemm_test_w8.log")"; pack
for sums in global cluster; do
  FP4GEMM_DECODE_SPLIT_SUMS=$sums timeout 90 "$B/fp4gemm_w8" bench $S $G --json "$O/w4a16_w8_$sums.json" > "$O/w4a16_w8_$sums.txt" 2>&1
  echo "== w4a16 w8 $sums rc=$? ${SECONDS}s"; rows "$O/w4a16_w8_$sums.txt"; pack
done

# 3. The check grid through the switch, and the sanitizers on the cluster tests.
FP4GEMM_DECODE_SPLIT_SUMS=cluster timeout 90 "$B/fp4gemm" check --backend cuda-decode > "$O/check_cluster.txt" 2>&1
echo "== check cluster rc=$? ${SECONDS}s $(tail -2 "$O/check_cluster.txt" | tr '\n' ' ')"; pack
for tool in memcheck racecheck synccheck; do
  timeout 100 "$CS" --tool $tool "$B/decode_gemm_test" --gtest_filter='DecodeGemmSplitSums.ClusterAndGlobalSumsGiveTheSameBits' \
    > "$O/${tool}_cluster.log" 2>&1
  echo "== $tool rc=$? ${SECONDS}s $(summary "$O/${tool}_cluster.log")"; pack
done
