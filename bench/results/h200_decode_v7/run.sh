#!/usr/bin/env bash
# Stop 14 call 2 (~9 min): cuda-decode v7 (code tiles) and cuda-wgmma v3c (scale tile by TMA):
# tests, sanitizers, check, benches against v6 (fp4gemm_v6) in the same call, grouped, then
# plan --measure at world size 1 with progress lines. Carry [".carry/c2"]; outputs in $OUT/c2.tgz.
B=/tmp/c2b; O=/tmp/c2o; rm -rf $B $O; mkdir -p $B $O; SECONDS=0
for f in .carry/c2/*.xz; do xz -dc $f > $B/$(basename $f .xz); chmod +x $B/$(basename $f .xz); done
export FP4GEMM_CACHE_DIR=$PWD/.carry/c2/cache
export FP4GEMM_NCCL_LIBRARY=$(python3 -c 'import nvidia.nccl; print(list(nvidia.nccl.__path__)[0])')/lib/libnccl.so.2
s() { grep -E '^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|ERROR SUMMARY|RACECHECK SUMMARY' $1 | head -6 | tr '\n' ' '; }
G="--max-seconds 0.1"
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
{ nvidia-smi -L; nvidia-smi topo -m; } > $O/topology.txt 2>&1
for t in decode_gemm_test grouped_gemm_test wgmma_gemm_test plan_measure_gpu_test; do timeout 120 $B/$t > $O/$t.log 2>&1; echo "$t rc=$? ${SECONDS}s $(s $O/$t.log)"; done
timeout 60 $CS --tool memcheck $B/decode_gemm_test --gtest_filter='*EveryMFrom1To32/w4a16_nvfp4_linear_bf16:*AwkwardShapesAndSplitK/*swizzled_f32' > $O/memcheck_decode.log 2>&1; echo "memcheck decode rc=$? ${SECONDS}s $(s $O/memcheck_decode.log)"
timeout 60 $CS --tool racecheck $B/decode_gemm_test --gtest_filter='*AwkwardShapesAndSplitK/w4a16_nvfp4_linear_f32:*AwkwardShapesAndSplitK/w4a4_mxfp4_swizzled_f32' > $O/racecheck_decode.log 2>&1; echo "racecheck decode rc=$? ${SECONDS}s $(s $O/racecheck_decode.log)"
timeout 60 $CS --tool racecheck $B/wgmma_gemm_test --gtest_filter='AllCombos/WgmmaGemm.RandomOperandsWithinTheAccumulationBound/w4a16_nvfp4_linear_bf16:AllCombos/WgmmaGemm.RandomOperandsWithinTheAccumulationBound/w4a16_mxfp4_swizzled_f32' > $O/racecheck_wgmma.log 2>&1; echo "racecheck wgmma rc=$? ${SECONDS}s $(s $O/racecheck_wgmma.log)"
timeout 90 $B/fp4gemm check --backend cuda-decode,cuda-wgmma > $O/check.txt 2>&1; echo "check rc=$? ${SECONDS}s"; tail -5 $O/check.txt
for b in fp4gemm fp4gemm_v6; do timeout 100 $B/$b bench -m 1,16,32 -n 6144,16384,4096 -k 6144 --mode w4a16 --backend cuda-decode,cublas-bf16 $G --json $O/decode_$b.json > $O/decode_$b.txt 2>&1; echo "== decode $b rc=$? ${SECONDS}s"; grep -E "^ *[0-9]+ " $O/decode_$b.txt | cut -c1-92; done
timeout 40 $B/fp4gemm bench -m 1,16 -n 6144,768 -k 2048,6144 --mode w4a16 --backend cuda-decode,cublas-bf16 $G --json $O/decode_small.json > $O/decode_small.txt 2>&1; echo "== decode small rc=$? ${SECONDS}s"; grep -E "^ *[0-9]+ " $O/decode_small.txt | cut -c1-92
timeout 150 $B/fp4gemm bench --grouped --experts 32 --tokens-per-expert 1,16 -n 4096 -k 6144 --mode w4a16 $G --json $O/grouped.json > $O/grouped.txt 2>&1; echo "== grouped rc=$? ${SECONDS}s"; grep -E "^ *[0-9]+ " $O/grouped.txt | cut -c1-110
timeout 60 $B/fp4gemm bench -m 1024,4096 -n 6144 -k 6144 --mode w4a16 --backend cuda-wgmma,cublas-bf16 $G --json $O/wgmma.json > $O/wgmma.txt 2>&1; echo "== wgmma rc=$? ${SECONDS}s"; grep -E "^ *[0-9]+ " $O/wgmma.txt | cut -c1-92
timeout 60 $(command -v ncu || echo /usr/local/cuda/bin/ncu) --clock-control none -k regex:decode_gemm -c 1 --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy $B/fp4gemm run --backend cuda-decode -m 1 -n 16384 -k 6144 --calls 2 > $O/ncu_decode_1x16384x6144.txt 2>&1; echo "ncu rc=$? ${SECONDS}s"; grep -E "Duration|DRAM Through|Issued Warp" $O/ncu_decode_1x16384x6144.txt
tar czf $OUT/c2.tgz -C $O .
L=$((555 - SECONDS)); echo "plan --measure gets ${L}s"
timeout $L $B/fp4gemm plan --measure --model glm5 --gpus 1 --compare tp1 --batch 1,64,256,1024 --timeout $((L - 5)) --json $O/plan_measure_glm5_tp1.json > $O/plan_measure_glm5_tp1.txt 2> $O/plan_measure_glm5_tp1.err
echo "plan --measure rc=$? ${SECONDS}s"; cat $O/plan_measure_glm5_tp1.err | tail -8; tail -25 $O/plan_measure_glm5_tp1.txt | cut -c1-160
tar czf $OUT/c2.tgz -C $O .
