#!/usr/bin/env bash
# Installs what fp4gemm needs to build (Debian packages), then configures and builds it in
# build/. Idempotent: packages already present are not fetched again. Needs root (or sudo) for
# apt-get. CUDA is used when nvcc is found (CUDA_HOME, PATH, or /usr/local/cuda).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ pkg-config libcli11-dev nlohmann-json3-dev libfmt-dev libgtest-dev
          libopenblas-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}"
fi

if ! command -v nvcc >/dev/null 2>&1; then
  for dir in "${CUDA_HOME:-}" /usr/local/cuda; do
    if [[ -n "$dir" && -x "$dir/bin/nvcc" ]]; then export PATH="$dir/bin:$PATH"; break; fi
  done
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$(nproc)"
