#!/usr/bin/env python3
"""Fits cuda-wgmma's plan cost model (src/cuda/wgmma_gemm.cu, choose) to measured times.

Usage: fit.py [--stop38-picks] DIR... [--sms SMS]
  DIR             folders of bench JSON files (run.sh's n{N}_k{K}_bm{BM}_s{S}.json,
                  ../wgmma_small_tiles/run.sh's n{N}_k{K}_bm{BM}.json, ...). A cuda-wgmma row's
                  config is its "plan" field (bench JSON since stop 39: tile and K-splits); in
                  older files without it, the forced config of a run.sh file's name (S given), or
                  with --stop38-picks the plan of stop 38's model (a K-tile cost proportional to
                  BM; ../stop38_decide/call_c) for files of no such name. Rows of BM = auto files
                  are also listed beside cublas-bf16 as the build's own choice;
  SMS             the GPU's multiprocessors (default 132).

Model, per plan (BM tokens per tile, `splits` K-splits, waves = ceil(tiles x splits / SMS)):
  t = F0 + waves x (unit[BM] + K-tiles per split x k_tile[BM]) + [splits > 1] x waves x splits x R
with a unit and a K-tile term for every BM in the data, fitted by least squares on relative error
over points with M >= 33 where BM >= 128 (below, the same plans run with fewer real tokens) and
all points of the 32- and 64-token tiles. Prints the terms, each point against the model, and for
the forced files the fastest config of each (shape, M) beside the one the fitted model picks.
"""
import glob
import json
import math
import os
import re
import sys

BLOCK_N, BLOCK_K, MAX_SPLITS = 128, 64, 16


def plan(m, n, k, bm, want, sms):
    """(splits, K-tiles per split, waves) of a plan asking for `want` splits, evened as choose does."""
    k_tiles = math.ceil(k / BLOCK_K)
    per_split = math.ceil(k_tiles / want)
    splits = math.ceil(k_tiles / per_split)
    tiles = math.ceil(m / bm) * math.ceil(n / BLOCK_N)
    return splits, per_split, math.ceil(tiles * splits / sms)


def terms_of(tiles):
    """The model's terms for the token tiles `tiles` (descending): F0, k_tile and unit per tile, R."""
    return ["F0"] + [f"k_tile{bm}" for bm in tiles] + [f"unit{bm}" for bm in tiles] + ["R"]


def features(m, n, k, bm, want, sms, tiles):
    splits, per_split, waves = plan(m, n, k, bm, want, sms)
    row = [0.0] * (2 + 2 * len(tiles))
    row[0] = 1.0
    i = tiles.index(bm)
    row[1 + i] = waves * per_split
    row[1 + len(tiles) + i] = waves
    row[-1] = waves * splits if splits > 1 else 0.0
    return row


def stop38_pick(m, n, k, sms):
    """The plan of stop 38's model: waves x (K-tiles per split + reduction) x BM, 256 first."""
    k_tiles = math.ceil(k / BLOCK_K)
    best = None
    for bm, split_k in ((256, False), (128, True)):
        for want in range(1, (min(k_tiles, MAX_SPLITS) if split_k else 1) + 1):
            splits, per_split, waves = plan(m, n, k, bm, want, sms)
            cost = waves * (per_split + (splits + 1 if splits > 1 else 0)) * bm
            if best is None or cost < best[0]:
                best = (cost, bm, want)
    return best[1], best[2]


def solve(rows, times):
    """Least squares on relative error (normal equations, Gauss-Jordan); unused terms stay 0."""
    n = len(rows[0])
    a = [[0.0] * n for _ in range(n)]
    b = [0.0] * n
    for row, t in zip(rows, times):
        scaled = [v / t for v in row]
        for i in range(n):
            b[i] += scaled[i]
            for j in range(n):
                a[i][j] += scaled[i] * scaled[j]
    used = [i for i in range(n) if a[i][i] > 0]
    m = [[a[i][j] for j in used] + [b[i]] for i in used]
    for c in range(len(used)):
        p = max(range(c, len(used)), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(len(used)):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [vr - f * vc for vr, vc in zip(m[r], m[c])]
    x = [0.0] * n
    for c, i in enumerate(used):
        x[i] = m[c][-1] / m[c][c]
    return x


def config_of(row, name, stop38_picks, sms):
    """(BM, splits) a cuda-wgmma row ran, or None where nothing tells it."""
    told = re.match(r"\d+x(\d+)x\d+ .* (\d+) K-splits", row.get("plan", ""))
    if told:
        return int(told[1]), int(told[2])
    if name and name[3] != "auto" and name[4] is not None:
        return int(name[3]), 1 if name[4] == "auto" else int(name[4])
    if not name and stop38_picks:
        return stop38_pick(row["m"], row["n"], row["k"], sms)
    return None


def load(folders, stop38_picks, sms):
    """(points: (n, k, m, bm, want, us), auto: {(n, k, m): {backend: us}})."""
    points, auto = [], {}
    for path in sorted(p for folder in folders for p in glob.glob(os.path.join(folder, "*.json"))):
        name = re.match(r"n(\d+)_k(\d+)_bm(\w+?)(?:_s(\w+))?\.json$", os.path.basename(path))
        for r in json.load(open(path)).get("results", []):
            if not r.get("ran"):
                continue
            m, n, k, us = r["m"], r["n"], r["k"], r["median_us"]
            if name and name[3] == "auto":
                auto.setdefault((n, k, m), {})[r["backend"]] = us
            if r["backend"] != "cuda-wgmma":
                continue
            config = config_of(r, name, stop38_picks, sms)
            if config is not None:
                points.append((n, k, m, *config, us))
            elif not (name and name[3] == "auto"):
                print(f"fit.py: {path}: a cuda-wgmma row of {m} x {n} x {k} tells no plan; left out", file=sys.stderr)
    return points, auto


def main(argv):
    args = argv[1:]
    stop38_picks = "--stop38-picks" in args
    args = [a for a in args if a != "--stop38-picks"]
    sms = 132
    if "--sms" in args:
        i = args.index("--sms")
        sms = int(args[i + 1])
        del args[i:i + 2]
    if not args:
        sys.exit(__doc__)
    points, auto = load(args, stop38_picks, sms)
    points = [p for p in points if p[2] >= 33 or p[3] < 128]
    if not points:
        sys.exit(f"fit.py: no usable points in {' '.join(args)}")
    tiles = sorted({p[3] for p in points}, reverse=True)
    rows = [features(m, n, k, bm, want, sms, tiles) for n, k, m, bm, want, _ in points]
    x = solve(rows, [p[-1] for p in points])
    print("terms (us): " + "  ".join(f"{t} {v:.4g}" for t, v in zip(terms_of(tiles), x)))
    model = lambda row: sum(a * b for a, b in zip(row, x))
    print("\n    N     K     M   BM splits waves  measured   model    error")
    worst = 0.0
    for (n, k, m, bm, want, us), row in zip(points, rows):
        splits, _, waves = plan(m, n, k, bm, want, sms)
        err = model(row) / us - 1
        worst = max(worst, abs(err))
        print(f"{n:5d} {k:5d} {m:5d} {bm:4d} {splits:6d} {waves:5d} {us:9.1f} {model(row):7.1f} {err:+7.1%}")
    print(f"worst relative error {worst:.1%} over {len(points)} points")
    if auto or not stop38_picks:
        print("\nper (shape, M): the fastest forced config, the fitted model's pick (* where it is not the")
        print("fastest), the build's own choice (BM = auto) and cublas-bf16")
        for key in sorted({p[:3] for p in points}):
            here = [p for p in points if p[:3] == key]
            fastest = min(here, key=lambda p: p[-1])
            pick = min(here, key=lambda p: model(features(p[2], p[0], p[1], p[3], p[4], sms, tiles)))
            a = auto.get(key, {})
            print("{:5d} {:5d} {:5d}  bm{} s{} {:8.1f}   bm{} s{} {:8.1f}{:2}  auto {:8.1f}  cublas-bf16 {:8.1f}".format(
                *key, fastest[3], fastest[4], fastest[5], pick[3], pick[4], pick[5], "" if pick is fastest else " *",
                a.get("cuda-wgmma", math.nan), a.get("cublas-bf16", math.nan)))


if __name__ == "__main__":
    main(sys.argv)
