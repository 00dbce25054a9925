#!/usr/bin/env bash
# The main job: set-up (packages, configure, build), then `fp4gemm bench` on the default preset
# on the best device present (the GPU if there is one, else the CPU). Extra arguments go to bench.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build/fp4gemm bench "$@"
