#!/usr/bin/env bash
# Call 7: verify b140855 (bin) and v4 candidate (bin3: scale tile per CTA, 6-stage code ring,
# format as template, 2 accumulator chains at M <= 8); ncu stall profiles; small-shape floor;
# CTAs-per-SM experiment (FP4GEMM_EXP_CTAS, uncommitted knob).
B=/tmp/fp4bin; B3=/tmp/fp4bin3; mkdir -p $B $B3; tar xJf .carry/lead/bin.tar.xz -C $B; tar xJf .carry/lead/bin3.tar.xz -C $B3
L=$OUT/logs; mkdir -p $L; SECONDS=0
export FP4GEMM_CACHE_DIR=$PWD/.carry/lead/cache
t() { local lim=$1; shift; timeout $lim "$@"; }
s() { grep -E '^\[  (PASSED|FAILED) |^\[  FAILED  \]' $1 | head -8 | tr '\n' ' '; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
t 100 $B3/tests/cuda/decode_gemm_test > $L/decode_test_v4.log 2>&1; echo "decode test v4 rc=$? ${SECONDS}s $(s $L/decode_test_v4.log)"
t 80 $B3/tests/cuda/grouped_gemm_test > $L/grouped_test_v4.log 2>&1; echo "grouped test v4 rc=$? ${SECONDS}s $(s $L/grouped_test_v4.log)"
t 100 $B/tests/cuda/decode_gemm_test > $L/decode_test_b140855.log 2>&1; echo "decode test b140855 rc=$? ${SECONDS}s $(s $L/decode_test_b140855.log)"
t 80 $B/tests/cuda/grouped_gemm_test > $L/grouped_test_b140855.log 2>&1; echo "grouped test b140855 rc=$? ${SECONDS}s $(s $L/grouped_test_b140855.log)"
G="-m 1,16 -n 16384,6144 -k 6144 --backend cuda-decode --max-seconds 0.1"
t 40 $B/fp4gemm bench $G > $L/base.txt 2>&1; echo "== v3 (b140855)"; grep -E "^ *[0-9]+ " $L/base.txt | cut -c1-80
for c in 4 6 8; do FP4GEMM_EXP_CTAS=$c t 40 $B3/fp4gemm bench $G > $L/v4_ctas$c.txt 2>&1; echo "== v4 ctas/SM target $c"; grep -E "^ *[0-9]+ " $L/v4_ctas$c.txt | cut -c1-80; done
echo "bench done ${SECONDS}s"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
NS="--section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum"
t 90 $NCU --clock-control none -k regex:decode_gemm -c 1 $NS $B3/fp4gemm run --backend cuda-decode -m 1 -n 16384 -k 6144 --calls 2 > $L/ncu_v4_16384.txt 2>&1; echo "ncu v4 rc=$? ${SECONDS}s"
t 90 $NCU --clock-control none -k regex:decode_gemm -c 1 $NS $B/fp4gemm run --backend cuda-decode -m 1 -n 16384 -k 6144 --calls 2 > $L/ncu_v3_16384.txt 2>&1; echo "ncu v3 rc=$? ${SECONDS}s"
for be in cuda-decode cublas-bf16; do
t 50 $NCU --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,launch__grid_size $B3/fp4gemm run --backend $be -m 1 -n 768 -k 6144 --calls 3 > $L/ncu_768_$be.txt 2>&1; echo "ncu768 $be rc=$? ${SECONDS}s"
done
t 30 $B3/fp4gemm bench -m 1 -n 768,256 -k 6144 --backend cuda-decode,cublas-bf16 --max-seconds 0.1 --timing graph --cache hot > $L/small_hot.txt 2>&1; echo "== small graph hot"; grep -E "^ *[0-9]+ " $L/small_hot.txt | cut -c1-80
echo "total ${SECONDS}s"
for f in v4 v3; do echo "#### ncu $f"; grep -E "stalled|Duration|Throughput|Issued Ipc|Issue Slots|Eligible|Active Warps|Warp Cycles|Achieved Occ|Registers|Theoretical Occ|No Eligible|inst_executed" $L/ncu_${f}_16384.txt | grep -v " 0$\| 0,00\| 0\.0[0-4]$" | sed 's/  */ /g' | head -45; done
grep -E "decode|gemv|gemm|Kernel|duration|bytes_read|grid_size" $L/ncu_768_*.txt | grep -v "==PROF" | sed 's/  */ /g' | head -40
tar czf $OUT/logs.tgz -C $OUT logs
