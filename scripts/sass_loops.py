#!/usr/bin/env python3
"""Lists the loops of a kernel's SASS with their size and opcode census.

Usage: scripts/sass_loops.py SASS KERNEL [MIN_SIZE]
  SASS      the output of `cuobjdump -sass` (a binary, an object file or a cubin);
  KERNEL    a substring of the mangled kernel name, e.g. grouped_gemm_kernelILi8ELi4E;
  MIN_SIZE  loops with fewer instructions are not listed (default 20).

A loop is a backward branch: its body is every instruction from the branch target to the branch.
Predicates are dropped and opcodes cut at the first '.', so `@!P0 IMAD.WIDE.U32` counts as IMAD.
cuobjdump needs no GPU: without a CUDA toolkit that has it, `pip install nvidia-cuda-cuobjdump`
puts one in site-packages' nvidia/cu13/bin/.
"""
import collections
import re
import sys


def instructions(function_text):
    """(address, instruction text without predicate) for each instruction of one function."""
    out = []
    for line in function_text.split("\n"):
        m = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", line)
        if m:
            out.append((int(m.group(1), 16), re.sub(r"^@!?U?P[T0-9]+\s+", "", m.group(2))))
    return out


def main(argv):
    if len(argv) not in (3, 4):
        sys.exit(__doc__)
    path, kernel = argv[1], argv[2]
    min_size = int(argv[3]) if len(argv) == 4 else 20
    found = False
    for function in re.split(r"\n\s+Function : ", open(path).read())[1:]:
        name = function.split("\n", 1)[0].strip()
        if kernel not in name:
            continue
        found = True
        code = instructions(function)
        print(f"{name}: {len(code)} instructions")
        for address, text in code:
            target = re.match(r"BRA\s+.*?0x([0-9a-f]+)", text)
            if not target or int(target.group(1), 16) > address:
                continue
            start = int(target.group(1), 16)
            census = collections.Counter(t.split()[0].split(".")[0] for a, t in code if start <= a <= address)
            size = sum(census.values())
            if size >= min_size:
                ops = " ".join(f"{op}:{n}" for op, n in census.most_common())
                print(f"  loop {start:#x}..{address:#x}, {size} instructions: {ops}")
    if not found:
        sys.exit(f"sass_loops.py: KERNEL = '{kernel}' names no function of {path}")


if __name__ == "__main__":
    main(sys.argv)
