#!/usr/bin/env bash
# Prepared in stop 14 for the next session's first device call (~6 min). Binaries built here from
# main at 4c70fc0 (fp4gemm_main and *_main tests: auto's new fallback rule and cuda-dequant-cublas's
# image check were not run on a GPU in stop 14) and four experiment branches of f9951d0:
#   *_dq2d        exp-dequant-2d: the FP4 -> bf16 kernel on a (chunk blocks, rows) grid, no
#                 64-bit division per chunk (cuda-dequant-cublas's fixed cost, cuda-wgmma's w4a4)
#   *_dq2d32      exp-dequant-2d32 (on exp-dequant-2d): two chunks per thread, one 16-byte code load
#   *_occ_s4_t7   exp-decode-occ_s4_t7: cuda-decode kStages 4, kCtasPerSmTarget 7 (more warps
#                 per scheduler: 1 x 16384 x 6144 -> 1024 CTAs in one wave, ~8 per SM)
#   *_occ_s5_t7   exp-decode-occ_s5_t7: kStages 5, kCtasPerSmTarget 7
# Carry [".carry/next"]; outputs packed in $OUT/next.tgz after every step.
B=/tmp/nb; O=/tmp/no; rm -rf $B $O; mkdir -p $B $O; SECONDS=0
for f in .carry/next/*.xz; do xz -dc $f > $B/$(basename $f .xz); chmod +x $B/$(basename $f .xz); done
export FP4GEMM_CACHE_DIR=$PWD/.carry/next/cache
s() { grep -E '^\[  (PASSED|FAILED) |^\[  FAILED  \]|ERROR SUMMARY|RACECHECK SUMMARY' $1 | head -6 | tr '\n' ' '; }
pack() { tar czf $OUT/next.tgz -C $O .; }
G="--max-seconds 0.1"
# 1. main's tests not yet run on a GPU, then the experiments' tests
for t in auto_backend_test_main dequant_cublas_test_main decode_gemm_test_main dequant_cublas_test_dq2d dequant_cublas_test_dq2d32 wgmma_gemm_test_dq2d decode_gemm_test_occ_s4_t7 decode_gemm_test_occ_s5_t7; do timeout 150 $B/$t > $O/$t.log 2>&1; echo "$t rc=$? ${SECONDS}s $(s $O/$t.log)"; done; pack
# 2. cuda-dequant-cublas: main against dq2d
for b in main dq2d dq2d32; do timeout 80 $B/fp4gemm_$b bench -m 33,1024,4096 -n 6144 -k 6144,2048 --mode w4a16 --backend cuda-dequant-cublas,cublas-bf16 $G --json $O/dequant_$b.json > $O/dequant_$b.txt 2>&1; echo "== dequant $b rc=$? ${SECONDS}s"; grep -E "^ *[0-9]+ " $O/dequant_$b.txt | awk '{print $1, $2, $3, $6, $11}'; done; pack
# 3. cuda-decode: main against the occupancy variants
for b in main occ_s4_t7 occ_s5_t7; do timeout 80 $B/fp4gemm_$b bench -m 1,16 -n 6144,16384 -k 6144 --mode w4a16 --backend cuda-decode,cublas-bf16 $G --json $O/decode_$b.json > $O/decode_$b.txt 2>&1; echo "== decode $b rc=$? ${SECONDS}s"; grep -E "^ *[0-9]+ " $O/decode_$b.txt | awk '{print $1, $2, $3, $6, $11}'; done; pack
