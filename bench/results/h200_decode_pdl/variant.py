# Variants of the PDL placement in decode_gemm.cuh (experiment only; restore decode_v1.cuh after).
import sys
path = "src/cuda/decode_gemm.cuh"
s = open(path).read()
both = "  wait_for_prerequisite_grids();\n  allow_dependent_grids();\n"
assert s.count(both) == 1
v = sys.argv[1]
if v == "v2":  # trigger late: after the main loop, before step 4
    s = s.replace(both, "  wait_for_prerequisite_grids();\n")
    anchor = "  // 4.\n  if (cta.splits > 1"
    assert s.count(anchor) == 1
    s = s.replace(anchor, "  allow_dependent_grids();\n" + anchor)
elif v == "v3":  # wait + trigger at the start, before the prologue copies
    s = s.replace(both, "")
    anchor = "  if (!lane_stream.copies) zero_stages(ring, kStageStep, lane);\n"
    assert s.count(anchor) == 1
    s = s.replace(anchor, both + anchor)
elif v == "v4":  # trigger first, weight copies, then wait
    s = s.replace(both, "  wait_for_prerequisite_grids();\n")
    anchor = "  if (!lane_stream.copies) zero_stages(ring, kStageStep, lane);\n"
    assert s.count(anchor) == 1
    s = s.replace(anchor, "  allow_dependent_grids();\n" + anchor)
else:
    sys.exit("v2, v3 or v4")
open(path, "w").write(s)
