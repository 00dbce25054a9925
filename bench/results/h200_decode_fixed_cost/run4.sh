#!/usr/bin/env bash
# Stop 19 call 4: the one-atomic split-K handshake alone (fp4gemm, A staging as committed)
# against call 2's build (fp4gemm_call2: quantizer + grouped plan, per-thread fences) in one call;
# tests of this build; grouped. Carry [".carry/s19", ".carry/s19d"]; outputs in $OUT/s19d.tgz.
B=/tmp/s19d; O=/tmp/s19do; rm -rf $B $O; mkdir -p $B $O; SECONDS=0
for f in .carry/s19d/*.xz; do xz -dc $f > $B/$(basename $f .xz); chmod +x $B/$(basename $f .xz); done
xz -dc .carry/s19/fp4gemm.xz > $B/fp4gemm_call2; chmod +x $B/fp4gemm_call2
export FP4GEMM_CACHE_DIR=$O/cache
C="--ceilings bench/results/h200_merged_verify/ceilings.json"
s() { grep -E '^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]' $1 | head -6 | tr '\n' ' '; }
pack() { tar czf $OUT/s19d.tgz -C $O .; }
r() { grep -E "^ *[0-9]+ " $1 | awk '{print $1, $2, $3, $6, $10, $11}'; }
G="--max-seconds 0.1 $C"
for b in fp4gemm fp4gemm_call2; do timeout 70 $B/$b bench -m 1,16 -n 16384,6144,4096,768 -k 6144 --mode w4a16 --backend cuda-decode,cublas-bf16 $G --json $O/w4a16_$b.json > $O/w4a16_$b.txt 2>&1; echo "== w4a16 $b rc=$? ${SECONDS}s"; r $O/w4a16_$b.txt; pack; done
for t in decode_gemm_test grouped_gemm_test mma_gemm_test; do timeout 100 $B/$t > $O/$t.log 2>&1; echo "$t rc=$? ${SECONDS}s $(s $O/$t.log)"; grep -m3 -A6 "Failure" $O/$t.log | head -14; done; pack
timeout 90 $B/fp4gemm bench --grouped --backend cuda-grouped --experts 32 --tokens-per-expert 1 -n 4096 -k 6144 --mode w4a16 $G --json $O/grouped.json > $O/grouped.txt 2>&1; echo "== grouped rc=$? ${SECONDS}s"; r $O/grouped.txt; pack
