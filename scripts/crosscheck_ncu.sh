#!/usr/bin/env bash
# Cross-check of bench's timing against an independent timer, Nsight Compute (issue 6, item 6).
#
# For one shape and backend:
#   1. `fp4gemm bench --timing graph --cache hot --json` times it with the project's harness (CUDA-graph replay, median of samples
#      of back-to-back calls, hot L2);
#   2. `ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum` measures
#      every kernel of `fp4gemm run --calls 0` (prepare only) and of `fp4gemm run --calls N`: the
#      kernels beyond the prepare-only run are the N calls, k = (count difference) / N kernels
#      each; a call's time is the sum of its k kernels' durations. Clocks are left as they are
#      (bench does not lock them either) and caches are not flushed (bench's timings are hot-L2).
#   3. prints both medians and their ratio, and writes everything to the output directory.
# ncu serializes kernels and adds no launch gaps to a kernel's own duration, so for a kernel of
# more than a few microseconds the two medians should agree within the noise (a few %); below
# that bench's per-call time also holds the launch gaps between back-to-back calls.
#
# Usage: scripts/crosscheck_ncu.sh [--binary build/fp4gemm] [--backend cuda-mma] [-m 256]
#          [-n 6144] [-k 6144] [--mode w4a16] [--calls 50] [--out bench/results/crosscheck_ncu]
# Needs ncu (PATH or /usr/local/cuda/bin), python3, and permission to read GPU counters (root,
# or the driver option NVreg_RestrictProfilingToAdminUsers=0).
set -euo pipefail

binary=build/fp4gemm backend=cuda-mma m=256 n=6144 k=6144 mode=w4a16 calls=50
out=bench/results/crosscheck_ncu
while [[ $# -gt 0 ]]; do
  case "$1" in
    --binary) binary=$2 ;;
    --backend) backend=$2 ;;
    -m) m=$2 ;;
    -n) n=$2 ;;
    -k) k=$2 ;;
    --mode) mode=$2 ;;
    --calls) calls=$2 ;;
    --out) out=$2 ;;
    *) echo "crosscheck_ncu.sh: unknown argument '$1' (see the usage at the top of $0)" >&2; exit 2 ;;
  esac
  shift 2
done

ncu=$(command -v ncu || true)
[[ -z $ncu && -x /usr/local/cuda/bin/ncu ]] && ncu=/usr/local/cuda/bin/ncu
[[ -n $ncu ]] || { echo "crosscheck_ncu.sh: ncu (Nsight Compute) not found in PATH or /usr/local/cuda/bin" >&2; exit 1; }
[[ -x $binary ]] || { echo "crosscheck_ncu.sh: --binary '$binary' is not an executable" >&2; exit 1; }
mkdir -p "$out"

shape=(--backend "$backend" -m "$m" -n "$n" -k "$k" --mode "$mode")
"$binary" bench "${shape[@]}" --timing graph --cache hot --json "$out/bench.json" --force | tee "$out/bench.txt"
for c in 0 "$calls"; do
  "$ncu" --clock-control none --cache-control none --metrics gpu__time_duration.sum --csv \
    --log-file "$out/ncu_calls_$c.csv" "$binary" run "${shape[@]}" --calls "$c"
done

python3 - "$out" "$calls" <<'PY' | tee "$out/summary.txt"
import csv, json, statistics, sys
out, calls = sys.argv[1], int(sys.argv[2])
UNIT_US = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3,
           "second": 1e6, "s": 1e6}

def kernel_times_us(path):
    """gpu__time_duration.sum of every profiled kernel, in launch order, microseconds."""
    lines = [l for l in open(path) if not l.startswith("==")]
    header = next((i for i, l in enumerate(lines) if "Kernel Name" in l and "Metric Name" in l), None)
    if header is None:  # no kernel ran (a prepare that only copies and sets memory)
        return []
    rows = [r for r in csv.DictReader(lines[header:]) if r["Metric Name"] == "gpu__time_duration.sum"]
    return [float(r["Metric Value"].replace(",", "")) * UNIT_US[r["Metric Unit"]] for r in rows]

prepare = kernel_times_us(f"{out}/ncu_calls_0.csv")
everything = kernel_times_us(f"{out}/ncu_calls_{calls}.csv")
extra = len(everything) - len(prepare)
if extra <= 0 or extra % calls:
    sys.exit(f"{extra} kernels beyond prepare's {len(prepare)} are not a whole number per call of {calls}")
per_call = extra // calls
kernels = everything[len(prepare):]
ncu_calls = [sum(kernels[i * per_call:(i + 1) * per_call]) for i in range(calls)]
row = json.load(open(f"{out}/bench.json"))["results"][0]
if not row["ran"]:
    sys.exit(f"bench did not run the shape: {row['note']}")
bench_us, ncu_us = row["median_us"], statistics.median(ncu_calls)
q = statistics.quantiles(ncu_calls, n=10)
print(f"shape: {row['backend']} {row['format']} {row['mode']} {row['m']}x{row['n']}x{row['k']}")
print(f"bench (CUDA-graph replay, hot L2): median {bench_us:.2f} us, p10-p90 {row['p10_us']:.2f}-{row['p90_us']:.2f} us")
print(f"ncu gpu__time_duration.sum:  median {ncu_us:.2f} us, p10-p90 {q[0]:.2f}-{q[-1]:.2f} us "
      f"({calls} calls, {per_call} kernel(s) each)")
print(f"ratio bench / ncu: {bench_us / ncu_us:.3f}")
PY
