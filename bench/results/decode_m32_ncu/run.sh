#!/usr/bin/env bash
# Where cuda-decode's time goes at its two open cases (notes_decode.md): 32 x 16384 x 6144 (33 %
# of the floor, the main loop's chain at 32 tokens) and 1 x 6144 x 6144 (51 %, fixed cost), by
# Nsight Compute's full set on one cold-L2 call each, with SASS-level stall samples (CSV) to read
# on the build machine. Same profile() as ../ncu_breakdown/run.sh.
# Build: the stop 39 tree's .carry/land (../stop38_decide/run_d.sh's target list).
# Call: run(command="bash bench/results/decode_m32_ncu/run.sh", carry=[".carry/land"]); files in
# $OUT/decode_ncu.tgz. About 90 s.
source scripts/device_prelude.sh decode_ncu .carry/land || exit 1
profile() {  # LABEL SECONDS KERNEL-REGEX CMD...
  local label=$1 limit=$2 kernel=$3
  shift 3
  timeout "$limit" "$NCU" --set full --import-source no -k "regex:$kernel" --launch-skip 1 --launch-count 1 \
    -f -o "$O/$label" "$@" > "$O/$label.log" 2>&1
  echo "== $label rc=$? ${SECONDS}s"
  "$NCU" -i "$O/$label.ncu-rep" --page details > "$O/$label.details.txt" 2>&1
  "$NCU" -i "$O/$label.ncu-rep" --page source --csv --print-source sass > "$O/$label.sass.csv" 2>&1
  grep -E "Duration|DRAM Throughput|Memory Throughput|Compute \(SM\) Throughput|Issue Slots Busy|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|Warp Cycles Per Issued|No Eligible|Executed Ipc Active|Grid Size|Block Size|Waves Per SM" \
    "$O/$label.details.txt" | head -30
  rm -f "$O/$label.ncu-rep"
  pack
}
profile decode_32x16384 120 decode_gemm_kernel "$B/fp4gemm" run --backend cuda-decode -m 32 -n 16384 -k 6144 --calls 2
profile decode_1x6144 90 decode_gemm_kernel "$B/fp4gemm" run --backend cuda-decode -m 1 -n 6144 -k 6144 --calls 2
