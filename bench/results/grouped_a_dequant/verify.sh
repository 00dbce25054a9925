#!/usr/bin/env bash
# The second call (RUN.md): the adopted tree (grouped_a_dequant.patch + discard_partials.patch on
# the tree before them, with the scratch of a call without tokens allocated: the first call's
# grouped_gemm_test failed there) through the GPU tests of every kernel family the two patches
# touch (sum_partials is shared by cuda-decode, cuda-grouped, cuda-mma and cuda-wgmma), and memcheck on the grouped w4a4 path, empty experts included.
# Build: scripts/build_carry.sh .carry/v33 fp4gemm_cli,grouped_gemm_test,decode_gemm_test,\
#   wgmma_gemm_test,fp8_gemm_test,dequant_cublas_test,auto_backend_test,mma_gemm_test fp4gemm \
#   tests/cuda/grouped_gemm_test tests/cuda/decode_gemm_test tests/cuda/wgmma_gemm_test \
#   tests/cuda/fp8_gemm_test tests/cuda/dequant_cublas_test tests/cuda/auto_backend_test \
#   tests/cuda/mma_gemm_test
# Call: run(command="bash bench/results/grouped_a_dequant/verify.sh", carry=[".carry/v33"]);
# files in $OUT/s33.tgz.
source scripts/device_prelude.sh s33 .carry/v33 || exit 1
gtests grouped_gemm_test:120 decode_gemm_test:150 wgmma_gemm_test:120 fp8_gemm_test:120 \
  dequant_cublas_test:120 auto_backend_test:150 mma_gemm_test:150
sanitize memcheck grouped_w4a4 90 "$B/grouped_gemm_test" \
  --gtest_filter='GroupedKernelOptions.Dequantized*:AllCombos/GroupedGemm.EmptyOneAndSkewedExperts/w4a4_nvfp4_linear_bf16:AllCombos/GroupedGemm.EmptyOneAndSkewedExperts/w4a4_mxfp4_swizzled_f32'
pack
