#!/usr/bin/env bash
# The test command: set-up (packages, configure, build), then the whole test suite. GPU tests
# (ctest label `gpu`) report "skipped: no CUDA device" on machines without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
