#!/usr/bin/env bash
# Stop 38, call A: the measurements that decide the three prepared patches, in one call, because
# device starts failed all morning and the budget may not carry three (each patch's own run.sh,
# ../fixed_walk, ../wgmma_v6_register_a, ../fp8_turns, holds its full plan; call B runs their
# sanitizers, check grids and ncu sections).
# Builds (../fp8_turns/RUN.md has the commands):
#   .carry/fin   the landed tree (69d2e23);
#   .carry/next  that + fixed_walk.patch + v6.patch + fp8_turns.patch.
# Call: run(command="bash bench/results/stop38_decide/run_a.sh", carry=[".carry/fin", ".carry/next"]);
# files in $OUT/s38a.tgz. Most wanted first; every step packs.
source scripts/device_prelude.sh s38a .carry/fin=fin .carry/next=next || exit 1
# 1. The candidate's GPU tests of the three changed kernels.
gtests wgmma_gemm_test_next:90 fp8_gemm_test_next:90 grouped_gemm_test_next:120
G="--max-seconds 0.05 --ceilings datasheet"
# 2. cuda-wgmma v6 / v4 and cuda-fp8-lossy v3 / v1, each build beside cuBLAS in one process.
for b in next fin; do
  step "wgmma_$b" 60 "$B/fp4gemm_$b" bench -m 256,1024,4096 -n 6144,16384 -k 6144,2048 --mode w4a16 \
    --backend cuda-wgmma,cublas-bf16 $G --json "$O/wgmma_$b.json"
done
for b in next fin; do
  step "fp8_$b" 60 "$B/fp4gemm_$b" bench -m 1024,4096 -n 6144,16384 -k 6144,2048 --mode w4a16 \
    --backend cuda-fp8-lossy,cublaslt-fp8 $G --json "$O/fp8_$b.json"
done
# 3. (Moved to run_b.sh: the grouped and decode benches stopped with rc=2 here, because
#    `--ceilings measured` needs `fp4gemm ceilings` to have run in the call first.)
# 4. The rest of the candidate's GPU tests.
gtests decode_gemm_test_next:170 auto_backend_test_next:120 dequant_cublas_test_next:90 \
  mma_gemm_test_next:90 gpu_quantize_test_next:60
