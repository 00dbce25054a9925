#!/usr/bin/env bash
# Stop 18 call 2: w4a16 PDL placement variants (v0 no dependent launch, v1 copies-wait-trigger,
# v2 trigger after the main loop, v4 trigger first), w4a4 of v1; cublas-bf16 in each run.
B=/tmp/s17b; O=/tmp/s18o; rm -rf $B $O; mkdir -p $B $O; SECONDS=0
for f in .carry/s17/*.xz; do xz -dc $f > $B/$(basename $f .xz); chmod +x $B/$(basename $f .xz); done
export FP4GEMM_CACHE_DIR=$O/cache
pack() { tar czf $OUT/s18_call2.tgz -C $O .; }
G="--max-seconds 0.1 --backend cuda-decode,cublas-bf16"
for v in v1 v0 v2 v4; do
  timeout 75 $B/fp4gemm_$v bench -m 1,16 -n 6144,16384,768 -k 6144 --mode w4a16 $G --json $O/a16_$v.json > $O/a16_$v.txt 2>&1; echo "== a16 $v rc=$? ${SECONDS}s"; grep -E "^ *[0-9]+ " $O/a16_$v.txt | awk '{print $1, $2, $3, $6, $10, $11}'; pack
done
timeout 60 $B/fp4gemm_v1 bench -m 1,16 -n 16384,6144,768 -k 6144 --mode w4a4 $G --json $O/a4_v1.json > $O/a4_v1.txt 2>&1; echo "== a4 v1 rc=$? ${SECONDS}s"; grep -E "^ *[0-9]+ " $O/a4_v1.txt | awk '{print $1, $2, $3, $6, $10, $11}'; pack
