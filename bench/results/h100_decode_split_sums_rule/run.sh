#!/usr/bin/env bash
# One call on a GPU machine (RUN.md): the measured split-sum rule (SplitSums::by_slice_count, the
# default now) through the tests, `check`, and `bench` against cublas-bf16 in the same process,
# with this GPU's ceilings measured first; the forced sums where the rule's crossover lies.
# Step timeouts sum to 560 s. Build: bench/results/h100_decode_split_sums_rule/build_carry.sh.
# Call: run(command="bash bench/results/h100_decode_split_sums_rule/run.sh", carry=[".carry/v12"]);
# files in $OUT/v12.tgz.
source scripts/device_prelude.sh v12 .carry/v12 || exit 1
G="--max-seconds 0.1 --ceilings $O/ceilings.json"

step ceilings 45 "$B/fp4gemm" ceilings --json "$O/ceilings.json"
cat "$O/ceilings.txt"
[ -f "$O/ceilings.json" ] || G="--max-seconds 0.1 --ceilings datasheet"
timeout 120 "$B/decode_gemm_test" > "$O/decode_gemm_test.log" 2>&1
echo "decode_gemm_test rc=$? ${SECONDS}s $(summary "$O/decode_gemm_test.log")"
grep -m3 -A6 "Failure" "$O/decode_gemm_test.log" | head -14; pack
step check_decode 70 "$B/fp4gemm" check --backend cuda-decode
tail -2 "$O/check_decode.txt"

# The default rule against cublas-bf16 (w4a16), then w4a4 (activations quantized in the timed call).
step w4a16 90 "$B/fp4gemm" bench -m 1,16 -n 16384,6144,4096,768,512,256 -k 6144 --mode w4a16 \
  --backend cuda-decode,cublas-bf16 $G --json "$O/w4a16.json"
for k_n in 2048:6144 768:6144; do
  step "w4a16_k${k_n%%:*}" 30 "$B/fp4gemm" bench -m 1,16 -n "${k_n#*:}" -k "${k_n%%:*}" --mode w4a16 \
    --backend cuda-decode,cublas-bf16 $G --json "$O/w4a16_k${k_n%%:*}.json"
done
step w4a4 50 "$B/fp4gemm" bench -m 1,16 -n 16384,768,512 -k 6144 --mode w4a4 \
  --backend cuda-decode,cublas-bf16 $G --json "$O/w4a4.json"
# The crossover: N = 2048 / 1536 (16 K-slices in the global plan) and 1024 (24), both sums forced.
for sums in global cluster; do
  FP4GEMM_DECODE_SPLIT_SUMS=$sums step "crossover_$sums" 30 "$B/fp4gemm" bench -m 1,16 -n 2048,1536,1024 -k 6144 \
    --mode w4a16 --backend cuda-decode $G --json "$O/crossover_$sums.json"
done
timeout 100 "$B/grouped_gemm_test" > "$O/grouped_gemm_test.log" 2>&1
echo "grouped_gemm_test rc=$? ${SECONDS}s $(summary "$O/grouped_gemm_test.log")"; pack
