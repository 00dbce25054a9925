#!/usr/bin/env bash
# Stop 14 call 4 (~2 min): auto with the measured sm_90 table (decode <= 32, wgmma 33..255,
# dequant-cublas >= 256): its GPU tests, check, and --explain with times on the grid's M.
B=/tmp/c4b; O=/tmp/c4o; rm -rf $B $O; mkdir -p $B $O; SECONDS=0
for f in .carry/c4/*.xz; do xz -dc $f > $B/$(basename $f .xz); chmod +x $B/$(basename $f .xz); done
export FP4GEMM_CACHE_DIR=$PWD/.carry/c4/cache
pack() { tar czf $OUT/c4.tgz -C $O .; }
timeout 100 $B/auto_backend_test > $O/auto_backend_test.log 2>&1; echo "auto_backend_test rc=$? ${SECONDS}s $(grep -E '^\[  (PASSED|FAILED)|^\[  FAILED  \]' $O/auto_backend_test.log | head -5 | tr '\n' ' ')"; pack
timeout 100 $B/fp4gemm check --backend auto > $O/check_auto.txt 2>&1; echo "check rc=$? ${SECONDS}s"; tail -4 $O/check_auto.txt; pack
timeout 90 $B/fp4gemm bench --explain -m 1,64,512,4096 -n 6144 -k 6144 --mode w4a16 --backend auto,cublas-bf16 --max-seconds 0.1 --json $O/auto_explain.json > $O/auto_explain.txt 2>&1; echo "explain rc=$? ${SECONDS}s"; grep -E "^ *[0-9]+ |chose|rule|auto" $O/auto_explain.txt | cut -c1-160 | head -30; pack
