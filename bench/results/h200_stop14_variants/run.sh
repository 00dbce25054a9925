#!/usr/bin/env bash
# Prepared in session 13 for the next session's first device call (~5-6 min): everything built from
# main at the end of session 13 (fp4gemm_main and the tests) plus three experiment builds:
#   fp4gemm_bf16scales  branch exp-bf16-scales (cuda-wgmma scale tiles hold bf16, decoded in prepare())
#   fp4gemm_ctas2/8     cuda-decode with kCtasPerSmTarget 2 / 8 instead of 4 (fewer, longer CTAs or more)
#   fp4gemm_scaletma    branch exp-scale-tma (cuda-wgmma's scale tile by a TMA box, not cp.async.bulk):
#                       does racecheck still report the 16 hazards (step 6)?
# Carry [".carry/next"]; outputs packed in $OUT/next.tgz.
B=/tmp/nb; O=/tmp/no; rm -rf $B $O; mkdir -p $B $O; SECONDS=0
for f in .carry/next/*.xz; do xz -dc $f > $B/$(basename $f .xz); chmod +x $B/$(basename $f .xz); done
export FP4GEMM_CACHE_DIR=$PWD/.carry/next/cache
export FP4GEMM_NCCL_LIBRARY=$(python3 -c 'import nvidia.nccl; print(list(nvidia.nccl.__path__)[0])')/lib/libnccl.so.2
s() { grep -E '^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|ERROR SUMMARY|RACECHECK SUMMARY' $1 | head -6 | tr '\n' ' '; }
G="--max-seconds 0.1"
{ nvidia-smi -L; nvidia-smi topo -m; } > $O/topology.txt 2>&1
# 1. issue 8: plan --measure at world size 1
timeout 40 $B/plan_measure_gpu_test > $O/plan_measure_gpu_test.log 2>&1; echo "plan_measure_gpu_test rc=$? ${SECONDS}s $(s $O/plan_measure_gpu_test.log)"
timeout 100 $B/fp4gemm_main plan --measure --model glm5 --gpus 1 --compare tp1 --batch 1,64,256,1024 --timeout 95 --json $O/plan_measure_glm5_tp1.json > $O/plan_measure_glm5_tp1.txt 2> $O/plan_measure_glm5_tp1.err
echo "plan --measure rc=$? ${SECONDS}s"; tail -3 $O/plan_measure_glm5_tp1.err; tail -20 $O/plan_measure_glm5_tp1.txt | cut -c1-150
# 2. the final tree's GPU tests
for t in decode_gemm_test grouped_gemm_test wgmma_gemm_test wgmma_gemm_test_bf16scales wgmma_gemm_test_scaletma; do timeout 120 $B/$t > $O/$t.log 2>&1; echo "$t rc=$? ${SECONDS}s $(s $O/$t.log)"; done
# 3. cuda-decode: the final tree and the CTAs-per-SM variants
for b in main ctas2 ctas8; do timeout 100 $B/fp4gemm_$b bench -m 1,16 -n 6144,16384 -k 6144 --mode w4a16 --backend cuda-decode,cublas-bf16 $G --json $O/decode_$b.json > $O/decode_$b.txt 2>&1; echo "== decode $b rc=$? ${SECONDS}s"; grep -E "^ *[0-9]+ " $O/decode_$b.txt | cut -c1-92; done
# 4. cuda-wgmma: the final tree and the bf16 scale tiles
for b in main bf16scales scaletma; do timeout 60 $B/fp4gemm_$b bench -m 1024,4096 -n 6144 -k 6144 --mode w4a16 --backend cuda-wgmma,cublas-bf16 $G --json $O/wgmma_$b.json > $O/wgmma_$b.txt 2>&1; echo "== wgmma $b rc=$? ${SECONDS}s"; grep -E "^ *[0-9]+ " $O/wgmma_$b.txt | cut -c1-92; done
# 5. ncu of cuda-decode at 1 x 16384 x 6144 (what limits M = 1 now)
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
timeout 60 $NCU --clock-control none -k regex:decode_gemm -c 1 --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats $B/fp4gemm_main run --backend cuda-decode -m 1 -n 16384 -k 6144 --calls 2 > $O/ncu_decode_1x16384x6144.txt 2>&1; echo "ncu rc=$? ${SECONDS}s"
# 6. racecheck of cuda-wgmma: main (bulk copy) against the TMA-box variant
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
FW='AllCombos/WgmmaGemm.RandomOperandsWithinTheAccumulationBound/w4a16_nvfp4_linear_bf16:AllCombos/WgmmaGemm.RandomOperandsWithinTheAccumulationBound/w4a16_mxfp4_swizzled_f32'
for t in wgmma_gemm_test wgmma_gemm_test_scaletma; do timeout 60 $CS --tool racecheck $B/$t --gtest_filter="$FW" > $O/racecheck_$t.log 2>&1; echo "racecheck $t rc=$? ${SECONDS}s $(s $O/racecheck_$t.log)"; done
tar czf $OUT/next.tgz -C $O .
