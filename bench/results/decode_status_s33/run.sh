#!/usr/bin/env bash
# Issue 4's grid on the tree of stop 33 (the split-K partials discarded; .carry/v33, built as
# ../grouped_a_dequant/verify.sh says): cuda-decode beside cublas-bf16 and cublaslt-fp8, w4a16
# and w4a4 (NVFP4; w4a4 quantizes its activations on the GPU inside the timed call), against the
# read-bandwidth ceiling measured first in the same call.
# Call: run(command="bash bench/results/decode_status_s33/run.sh", carry=[".carry/v33"]);
# files in $OUT/s33_decode.tgz.
source scripts/device_prelude.sh s33_decode .carry/v33 || exit 1
step ceilings 120 "$B/fp4gemm" ceilings --json "$O/ceilings.json"
G="--backend cuda-decode,cublas-bf16,cublaslt-fp8 --mode w4a16,w4a4 --ceilings measured --max-seconds 0.03"
step large 200 "$B/fp4gemm" bench -m 1,16,32 -n 16384,6144,4096 -k 6144 $G --json "$O/large.json"
step down 60 "$B/fp4gemm" bench -m 1,16,32 -n 6144 -k 2048 $G --json "$O/down.json"
step tp8 200 "$B/fp4gemm" bench -m 1,2,4,8,16 -n 768,512,256 -k 6144 $G --json "$O/tp8.json"
step tp8_down 60 "$B/fp4gemm" bench -m 1,2,4,8,16 -n 6144 -k 768 $G --json "$O/tp8_down.json"
