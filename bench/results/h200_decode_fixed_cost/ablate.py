# Ablations of decode_gemm.cuh for the fixed-cost experiment (experiment builds only; the tree is
# restored with `git checkout src/cuda/decode_gemm.cuh` after each build). Same grid and plan as
# the committed kernel; the output is not computed, so these builds are timed, never checked.
#   a1: no weight stream (no copies, no MMAs): CTA start, A staging (+ shift), split-K sums, stores
#   a2: a1 without the split-K sums and stores: CTA start and A staging
#   a3: every CTA waits for the previous kernel (dependent launch) and returns: CTA start alone
import sys
path = "src/cuda/decode_gemm.cuh"
s = open(path).read()
def sub(old, new):
    global s
    assert s.count(old) == 1, old
    s = s.replace(old, new)
v = sys.argv[1]
if v in ("a1", "a2"):
    sub("    for (int i = 0; i < groups; ++i) {\n", "    for (int i = 0; i < 0; ++i) {\n")
    sub("    if (group < groups) copy_group(", "    if (group < 0) copy_group(")
if v == "a2":
    sub("  // 4.\n  if (cta.splits > 1", "  if (p.k > 0) return;\n  // 4.\n  if (cta.splits > 1")
if v == "a3":
    sub("  if (!lane_stream.copies) zero_stages(", "  wait_for_prerequisite_grids();\n  if (p.k > 0) return;\n  if (!lane_stream.copies) zero_stages(")
if v not in ("a1", "a2", "a3"):
    sys.exit("a1, a2 or a3")
open(path, "w").write(s)
