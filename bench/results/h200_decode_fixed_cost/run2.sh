#!/usr/bin/env bash
# Stop 19 call 2: where the fixed per-call time of cuda-decode goes at M = 1: the committed kernel
# (fp4gemm, with this stop's quantizer) against ablations a1 (no weight stream), a2 (a1 without
# the split-K sums and stores), a3 (CTAs wait and return), same grids; then ncu launch statistics
# and occupancy of the M = 1 grids. Carry [".carry/s19"]; outputs packed in $OUT/s19b.tgz.
B=/tmp/s19b; O=/tmp/s19o2; mkdir -p $B; rm -rf $O; mkdir -p $O; SECONDS=0
for f in .carry/s19/*.xz; do [ -x $B/$(basename $f .xz) ] || { xz -dc $f > $B/$(basename $f .xz); chmod +x $B/$(basename $f .xz); }; done
export FP4GEMM_CACHE_DIR=$O/cache
C="--ceilings bench/results/h200_merged_verify/ceilings.json"
pack() { tar czf $OUT/s19b.tgz -C $O .; }
r() { grep -E "^ *[0-9]+ " $1 | awk '{print $1, $2, $3, $6, $10, $11}'; }
G="--max-seconds 0.1 $C"
timeout 90 $B/fp4gemm bench -m 1 -n 16384,6144,4096,768 -k 6144 --mode w4a16 --backend cuda-decode,cublas-bf16 $G --json $O/m1_fp4gemm.json > $O/m1_fp4gemm.txt 2>&1; echo "== fp4gemm rc=$? ${SECONDS}s"; r $O/m1_fp4gemm.txt; pack
for a in a1 a2 a3; do timeout 60 $B/fp4gemm_$a bench -m 1,16 -n 16384,6144,768 -k 6144 --mode w4a16 --backend cuda-decode $G --json $O/abl_$a.json > $O/abl_$a.txt 2>&1; echo "== $a rc=$? ${SECONDS}s"; r $O/abl_$a.txt; pack; done
timeout 40 $B/fp4gemm bench -m 16 -n 16384,6144,768 -k 6144 --mode w4a16 --backend cuda-decode $G --json $O/m16_fp4gemm.json > $O/m16_fp4gemm.txt 2>&1; echo "== fp4gemm m16 rc=$? ${SECONDS}s"; r $O/m16_fp4gemm.txt; pack
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for n in 16384 6144 4096 768; do timeout 60 $NCU --clock-control none -k regex:decode_gemm -c 2 --section SpeedOfLight --section Occupancy --section LaunchStats $B/fp4gemm run --backend cuda-decode -m 1 -n $n -k 6144 --calls 2 > $O/ncu_1x${n}x6144.txt 2>&1; echo "ncu $n rc=$? ${SECONDS}s"; grep -E "Duration|DRAM Through|Grid Size|Theoretical Occ|Achieved Occ|Block Limit (Registers|Shared Mem)|Waves Per SM" $O/ncu_1x${n}x6144.txt | tail -9; pack; done
