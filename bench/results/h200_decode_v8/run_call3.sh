#!/usr/bin/env bash
# Stop 15 call 3 (~5 min): cuda-decode v8 (commit 993b791): ncu at 1 x 16384 x 6144; CTAs-per-SM
# targets 4 and 12 against 7 (fp4gemm_t4, fp4gemm_t12: decode_gemm.cu's kCtasPerSmTarget only);
# w4a4 against cublas-bf16 and cublaslt-fp8; grouped (32 experts x 1 token).
# Carry [".carry/fin"]; outputs packed in $OUT/fin.tgz after every step.
B=/tmp/finb; O=/tmp/fino; rm -rf $B $O; mkdir -p $B $O; SECONDS=0
for f in .carry/fin/*.xz; do xz -dc $f > $B/$(basename $f .xz); chmod +x $B/$(basename $f .xz); done
export FP4GEMM_CACHE_DIR=$PWD/.carry/fin/cache
pack() { tar czf $OUT/fin.tgz -C $O .; }
G="--max-seconds 0.1"
timeout 60 $(command -v ncu || echo /usr/local/cuda/bin/ncu) --clock-control none -k regex:decode_gemm -c 1 --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats $B/fp4gemm run --backend cuda-decode -m 1 -n 16384 -k 6144 --calls 2 > $O/ncu_decode_1x16384x6144.txt 2>&1; echo "ncu rc=$? ${SECONDS}s"; grep -E "Duration|DRAM Through|Issued Warp|Active Warps Per|Grid Size|Registers Per|Achieved Occ|Theoretical Occ" $O/ncu_decode_1x16384x6144.txt; pack
timeout 100 $B/fp4gemm bench --grouped --experts 32 --tokens-per-expert 1 -n 4096 -k 6144 --mode w4a16 $G --json $O/grouped.json > $O/grouped.txt 2>&1; echo "== grouped rc=$? ${SECONDS}s"; grep -E "^ *[0-9]+ " $O/grouped.txt | cut -c1-120; pack
timeout 80 $B/fp4gemm bench -m 1,16 -n 6144,16384 -k 6144 --mode w4a4 --backend cuda-decode,cublas-bf16,cublaslt-fp8 $G --json $O/w4a4.json > $O/w4a4.txt 2>&1; echo "== w4a4 rc=$? ${SECONDS}s"; grep -E "^ *[0-9]+ " $O/w4a4.txt | awk '{print $1, $2, $3, $6, $10, $11}'; pack
for b in fp4gemm fp4gemm_t4 fp4gemm_t12; do [ $SECONDS -lt 230 ] && timeout 45 $B/$b bench -m 1,16 -n 6144,16384,768 -k 6144 --mode w4a16 --backend cuda-decode,cublas-bf16 $G --json $O/ctas_$b.json > $O/ctas_$b.txt 2>&1; echo "== $b rc=$? ${SECONDS}s"; grep -E "^ *[0-9]+ " $O/ctas_$b.txt | awk '{print $1, $2, $3, $6, $10, $11}'; pack; done
