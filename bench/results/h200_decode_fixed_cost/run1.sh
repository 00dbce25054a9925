#!/usr/bin/env bash
# Stop 19 call 1: quantizer step 6 by byte permutes (fp4gemm vs fp4gemm_base = stop-18 committed
# build), grouped K-split plans (fp4gemm = divisor 4, _d1/_d8/_d32; d32 = the per-expert plan of
# stop 18), tests. Carry [".carry/s18", ".carry/s19"]; outputs packed in $OUT/s19a.tgz.
B=/tmp/s19b; O=/tmp/s19o; rm -rf $B $O; mkdir -p $B $O; SECONDS=0
for f in .carry/s19/*.xz; do xz -dc $f > $B/$(basename $f .xz); chmod +x $B/$(basename $f .xz); done
xz -dc .carry/s18/fp4gemm.xz > $B/fp4gemm_base; chmod +x $B/fp4gemm_base
export FP4GEMM_CACHE_DIR=$O/cache
C="--ceilings bench/results/h200_merged_verify/ceilings.json"
s() { grep -E '^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|ERROR SUMMARY' $1 | head -6 | tr '\n' ' '; }
pack() { tar czf $OUT/s19a.tgz -C $O .; }
r() { grep -E "^ *[0-9]+ " $1 | awk '{print $1, $2, $3, $6, $10, $11}'; }
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version --format=csv; } > $O/gpu.txt 2>&1
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for t in gpu_quantize_test decode_gemm_test grouped_gemm_test; do timeout 150 $B/$t > $O/$t.log 2>&1; echo "$t rc=$? ${SECONDS}s $(s $O/$t.log)"; grep -m3 -A6 "Failure" $O/$t.log | head -14; done; pack
timeout 60 $CS --tool memcheck $B/gpu_quantize_test --gtest_filter='*BlockValues*' > $O/memcheck_quantize.log 2>&1; echo "memcheck quantize rc=$? ${SECONDS}s $(s $O/memcheck_quantize.log)"; pack
G="--max-seconds 0.1 $C"
for b in fp4gemm fp4gemm_base; do timeout 75 $B/$b bench -m 1,16 -n 16384,6144,768 -k 6144 --mode w4a4 --backend cuda-decode,cublas-bf16 $G --json $O/w4a4_$b.json > $O/w4a4_$b.txt 2>&1; echo "== w4a4 $b rc=$? ${SECONDS}s"; r $O/w4a4_$b.txt; pack; done
timeout 120 $B/fp4gemm bench --grouped --experts 32 --tokens-per-expert 1,16 -n 4096 -k 6144 --mode w4a16 $G --json $O/grouped_d4.json > $O/grouped_d4.txt 2>&1; echo "== grouped d4 rc=$? ${SECONDS}s"; r $O/grouped_d4.txt; pack
for d in d1 d8 d32; do timeout 60 $B/fp4gemm_$d bench --grouped --backend cuda-grouped --experts 32 --tokens-per-expert 1,16 -n 4096 -k 6144 --mode w4a16 $G --json $O/grouped_$d.json > $O/grouped_$d.txt 2>&1; echo "== grouped $d rc=$? ${SECONDS}s"; r $O/grouped_$d.txt; pack; done
for d in "" _d1 _d32; do timeout 60 $B/fp4gemm$d bench --grouped --backend cuda-grouped --routing zipf:1.2 --experts 32 --tokens-per-expert 1 -n 4096 -k 6144 --mode w4a16 $G --json $O/grouped_zipf$d.json > $O/grouped_zipf$d.txt 2>&1; echo "== grouped zipf $d rc=$? ${SECONDS}s"; r $O/grouped_zipf$d.txt; pack; done
