#!/usr/bin/env bash
# Stop 17/18 call 1: PDL placement variants of cuda-decode (v0 = no dependent launch, v1 = weight
# copies, wait, trigger; v2 = trigger after the main loop; v3 = wait + trigger first), w4a16 and w4a4
# against cublas-bf16 in each binary's run; ncu of M = 16 w4a16 / w4a4 (decode + quantizer).
B=/tmp/s17b; O=/tmp/s17o; rm -rf $B $O; mkdir -p $B $O; SECONDS=0
for f in .carry/s17/*.xz; do xz -dc $f > $B/$(basename $f .xz); chmod +x $B/$(basename $f .xz); done
export FP4GEMM_CACHE_DIR=$O/cache
pack() { tar czf $OUT/s17_call1.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $O/gpu.txt 2>&1
G="--max-seconds 0.1 --backend cuda-decode,cublas-bf16"
for v in v1 v0 v2 v3 v4; do
  timeout 50 $B/fp4gemm_$v bench -m 1,16 -n 6144,16384,4096,768 -k 6144 --mode w4a16 $G --json $O/a16_$v.json > $O/a16_$v.txt 2>&1; echo "== a16 $v rc=$? ${SECONDS}s"; grep -E "^ *[0-9]+ " $O/a16_$v.txt | awk '{print $1, $2, $3, $6, $10, $11}'; pack
  timeout 45 $B/fp4gemm_$v bench -m 1,16 -n 16384,6144,768 -k 6144 --mode w4a4 $G --json $O/a4_$v.json > $O/a4_$v.txt 2>&1; echo "== a4 $v rc=$? ${SECONDS}s"; grep -E "^ *[0-9]+ " $O/a4_$v.txt | awk '{print $1, $2, $3, $6, $10, $11}'; pack
done
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for mode in w4a16 w4a4; do
  timeout 90 $NCU --clock-control none -k regex:"decode_gemm|quantize_kernel" -c 3 --section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis $B/fp4gemm_v1 run --backend cuda-decode -m 16 -n 6144 -k 6144 --mode $mode --calls 2 > $O/ncu_16x6144x6144_$mode.txt 2>&1; echo "ncu $mode rc=$? ${SECONDS}s"; grep -E "^  [a-z_]+.*\(|Duration|DRAM Through|Issued Warp|Active Warps Per|Grid Size|Registers Per|Achieved Occ|Dynamic Shared" $O/ncu_16x6144x6144_$mode.txt; pack
done
