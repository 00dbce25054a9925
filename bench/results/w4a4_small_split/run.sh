#!/usr/bin/env bash
# Where w4a4's extra time goes at the small decode shapes (../decode_status_s33: 1.2-3.9 us over
# w4a16 at N = 768, 512, 256 x K = 6144 and 6144 x 768): each kernel of one cuda-decode call timed
# alone under ncu (gpu__time_duration, kernels serialized: no dependent-launch overlap), w4a4 (the
# quantizer kernel, then the GEMM; at M = 1 the GEMM quantizes in itself) and w4a16 (the GEMM).
# Build: .carry/v34 = `scripts/build_carry.sh .carry/v34 fp4gemm_cli,grouped_gemm_test fp4gemm
# tests/cuda/grouped_gemm_test` at 0e5360b.
# Call: run(command="bash bench/results/w4a4_small_split/run.sh", carry=[".carry/v34"]);
# files in $OUT/s33_split.tgz.
source scripts/device_prelude.sh s33_split .carry/v34 || exit 1
# First: the refusal test added after stop 33's GPU calls.
gtests grouped_gemm_test:60
for shape in "2 768 6144" "16 768 6144" "16 256 6144" "16 6144 768" "1 768 6144"; do
  set -- $shape
  for mode in w4a4 w4a16; do
    f="$O/ncu_${1}x${2}x${3}_${mode}.txt"
    timeout 40 "$NCU" --clock-control none --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size \
      "$B/fp4gemm" run --backend cuda-decode -m "$1" -n "$2" -k "$3" --mode "$mode" --calls 3 > "$f" 2>&1
    echo "== ${1}x${2}x${3} $mode rc=$? ${SECONDS}s"
    grep -E "^  [a-z_:<>, 0-9A-Z]+\(|gpu__time_duration|launch__grid_size" "$f" | sed 's/^ *//' | cut -c1-110 | tail -12
  done
  pack
done
# cuda-wgmma v4 (the tree's) at 4096 x 6144 x 6144: stall reasons per SASS instruction, which load
# the long-scoreboard stalls of ../decode_zero_row's convert-first kernel waited on
# (notes_wgmma.md v5, "Next").
timeout 120 "$NCU" --clock-control none -k regex:wgmma_gemm -c 1 --section WarpStateStats --section SourceCounters \
  -o "$O/wgmma_v4" "$B/fp4gemm" run --backend cuda-wgmma -m 4096 -n 6144 -k 6144 --calls 2 > "$O/ncu_wgmma_v4.txt" 2>&1
echo "== ncu wgmma v4 rc=$? ${SECONDS}s"
timeout 60 "$NCU" --import "$O/wgmma_v4.ncu-rep" --page source --print-source sass --csv > "$O/wgmma_v4_sass.csv" 2>&1
echo "== sass page rc=$? ${SECONDS}s"
timeout 60 "$NCU" --import "$O/wgmma_v4.ncu-rep" --page details > "$O/wgmma_v4_details.txt" 2>&1
grep -E "Stall|Issued|Eligible" "$O/wgmma_v4_details.txt" | head -20
pack
# cuda-grouped w4a16, 32 experts x 4096 x 6144 at 1 and 4 tokens per expert (issue 7: 87 % of the
# floor at 1 token, 77 % at 4, with A's L2 traffic only 1.5 MB per expert at 4): speed of light,
# occupancy, launch and warp states of the grouped kernel at each.
for t in 1 4; do
  timeout 90 "$NCU" --clock-control none -k regex:grouped_gemm -c 1 --section SpeedOfLight \
    --section WarpStateStats --section Occupancy --section LaunchStats --metrics \
    dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,smsp__inst_executed.sum \
    "$B/fp4gemm" bench --grouped --backend cuda-grouped --experts 32 --tokens-per-expert $t -n 4096 \
    -k 6144 --mode w4a16 --max-seconds 0.01 > "$O/ncu_grouped_$t.txt" 2>&1
  echo "== ncu grouped $t tokens rc=$? ${SECONDS}s"
  grep -E "Duration|Throughput|Grid Size|Registers|Achieved Occupancy|Theoretical Occ|Issued|dram__|lts__|inst_exec|Stall" "$O/ncu_grouped_$t.txt" | sed 's/^ *//' | head -20
  pack
done
