# Sourced (bash) by the scripts of one call on a GPU machine (bench/results/*/run*.sh), which get
# the binaries built elsewhere as xz files in carried folders and send back what they write under
# $OUT: unpacks the binaries and defines what every such call uses.
#
# Usage: source scripts/device_prelude.sh NAME DIR...
#   unpacks DIR/*.xz (executables) into $B = /tmp/NAME/bin, makes $O = /tmp/NAME/out (emptied),
#   exports FP4GEMM_CACHE_DIR=$O/cache and writes $O/gpu.txt (nvidia-smi); then
#   pack          tars $O into $OUT/NAME.tgz (call it after every step: a step killed by the call's
#                 time limit still leaves the earlier steps' files);
#   summary LOG   the gtest and compute-sanitizer result lines of LOG on one line;
#   rows TABLE    M, N, K, time, % of floor and backend of each row of a `bench` table;
#   CS, NCU       compute-sanitizer and ncu (from PATH, else /usr/local/cuda/bin);
#   SECONDS       restarted, for the "${SECONDS}s" marks of each step.
B=/tmp/$1/bin
O=/tmp/$1/out
PACK_NAME=$1
shift
rm -rf "$B" "$O"
mkdir -p "$B" "$O"
for dir in "$@"; do
  for f in "$dir"/*.xz; do
    xz -dc "$f" > "$B/$(basename "$f" .xz)"
    chmod +x "$B/$(basename "$f" .xz)"
  done
done
export FP4GEMM_CACHE_DIR=$O/cache
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version --format=csv; } > "$O/gpu.txt" 2>&1
pack() { tar czf "$OUT/$PACK_NAME.tgz" -C "$O" .; }
summary() {
  grep -E '^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|ERROR SUMMARY|RACECHECK SUMMARY' "$1" | head -6 | tr '\n' ' '
}
rows() { grep -E "^ *[0-9]+ " "$1" | awk '{print $1, $2, $3, $6, $10, $11}'; }
SECONDS=0
