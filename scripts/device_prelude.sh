# Sourced (bash) by the scripts of one call on a GPU machine (bench/results/*/run*.sh), which get
# the binaries built elsewhere as xz files in carried folders and send back what they write under
# $OUT: unpacks the binaries and defines what every such call uses.
#
# Usage: source scripts/device_prelude.sh NAME DIR[=SUFFIX]...
#   unpacks DIR/*.xz (executables) into $B = /tmp/NAME/bin, each as its name without .xz, or with
#   _SUFFIX appended when the folder is given as DIR=SUFFIX (two builds of one program side by
#   side: .carry/main=main gives fp4gemm_main); a name unpacked twice is an error. Makes
#   $O = /tmp/NAME/out (emptied), exports FP4GEMM_CACHE_DIR=$O/cache and writes $O/gpu.txt
#   (nvidia-smi); then
#   pack          tars $O into $OUT/NAME.tgz (call it after every step: a step killed by the call's
#                 time limit still leaves the earlier steps' files);
#   summary LOG   the gtest totals and compute-sanitizer summaries of LOG on one line;
#   rows TABLE    M, N, K, time, % of floor and backend of each row of a `bench` table;
#   step LABEL SECONDS CMD...
#                 runs CMD with a time limit, its output in $O/LABEL.txt, then prints "== LABEL
#                 rc=.. Ns" and the bench table rows of that output, and packs (an assignment in
#                 front, VAR=x step ..., reaches CMD's environment);
#   gtests PROG:SECONDS...
#                 runs each GoogleTest program $B/PROG with a time limit, its output in
#                 $O/PROG.log, then prints "PROG rc=.. Ns" with its totals and its first failures,
#                 and packs;
#   sanitize TOOL LABEL SECONDS CMD...
#                 runs CMD under compute-sanitizer --tool TOOL with a time limit, its output in
#                 $O/TOOL_LABEL.log, then prints "TOOL LABEL rc=.. Ns" with the log's summary lines
#                 (summary), and packs;
#   profile LABEL SECONDS KERNEL-REGEX CMD...
#                 runs CMD under Nsight Compute's full set (its second launch of a kernel matching
#                 the regex, one cold-L2 call: ncu flushes the caches), then writes the report's
#                 details page ($O/LABEL.details.txt) and SASS-level source page with stall samples
#                 ($O/LABEL.sass.csv), prints "== LABEL rc=.. Ns" and the headline metrics, keeps
#                 the report gzipped ($O/LABEL.ncu-rep.gz) and packs;
#   CS, NCU       compute-sanitizer and ncu (from PATH, else /usr/local/cuda/bin);
#   SECONDS       restarted, for the "${SECONDS}s" marks of each step.
# Bad arguments, an unset OUT, a folder without .xz files or a failed unpack: a message naming
# it on stderr and a non-zero status from `source` (2 for usage, 1 for the rest).
device_prelude_error() { echo "device_prelude.sh: $*" >&2; }
if [ $# -lt 2 ]; then
  device_prelude_error "usage: source scripts/device_prelude.sh NAME DIR[=SUFFIX]..."
  return 2
fi
if ! [[ $1 =~ ^[A-Za-z0-9_][A-Za-z0-9_.-]*$ ]]; then
  device_prelude_error "NAME = '$1' must be letters, digits, '_', '.' or '-' (it names /tmp/NAME and \$OUT/NAME.tgz)"
  return 2
fi
if [ -z "${OUT:-}" ]; then
  device_prelude_error "OUT is not set (the folder whose files the call sends back)"
  return 2
fi
B=/tmp/$1/bin
O=/tmp/$1/out
PACK_NAME=$1
shift
rm -rf "$B" "$O"
mkdir -p "$B" "$O"
for spec in "$@"; do
  dir=${spec%%=*}
  suffix=
  [[ $spec == *=* ]] && suffix=_${spec#*=}
  files=()
  for f in "$dir"/*.xz; do [ -f "$f" ] && files+=("$f"); done
  if [ ${#files[@]} -eq 0 ]; then
    device_prelude_error "DIR = '$dir' holds no .xz files"
    return 1
  fi
  for f in "${files[@]}"; do
    name=$(basename "$f" .xz)$suffix
    if [ -e "$B/$name" ]; then
      device_prelude_error "$name comes from two folders ('$dir' and an earlier one): give one as DIR=SUFFIX"
      return 1
    fi
    if ! xz -dc "$f" > "$B/$name"; then
      device_prelude_error "could not unpack '$f'"
      return 1
    fi
    chmod +x "$B/$name"
  done
done
export FP4GEMM_CACHE_DIR=$O/cache
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version --format=csv; } > "$O/gpu.txt" 2>&1 || true
pack() { tar czf "$OUT/$PACK_NAME.tgz" -C "$O" .; }
summary() {
  grep -E '^\[  (PASSED|FAILED|SKIPPED) *\] [0-9]+ tests?|(ERROR|RACECHECK) SUMMARY' "$1" | tr '\n' ' '
}
rows() { grep -E "^ *[0-9]+ " "$1" | awk '{print $1, $2, $3, $6, $10, $11}'; }
step() {
  local label=$1 limit=$2 rc
  shift 2
  timeout "$limit" "$@" > "$O/$label.txt" 2>&1
  rc=$?
  echo "== $label rc=$rc ${SECONDS}s"
  rows "$O/$label.txt"
  pack
}
gtests() {
  local spec prog
  for spec in "$@"; do
    prog=${spec%%:*}
    timeout "${spec#*:}" "$B/$prog" > "$O/$prog.log" 2>&1
    echo "$prog rc=$? ${SECONDS}s $(summary "$O/$prog.log")"
    grep -m3 -A6 "Failure" "$O/$prog.log" | head -14
    pack
  done
}
sanitize() {
  local tool=$1 label=$2 limit=$3
  shift 3
  timeout "$limit" "$CS" --tool "$tool" "$@" > "$O/${tool}_$label.log" 2>&1
  echo "$tool $label rc=$? ${SECONDS}s $(summary "$O/${tool}_$label.log")"
  pack
}
profile() {
  local label=$1 limit=$2 kernel=$3
  shift 3
  timeout "$limit" "$NCU" --set full --import-source no -k "regex:$kernel" --launch-skip 1 --launch-count 1 \
    -f -o "$O/$label" "$@" > "$O/$label.log" 2>&1
  echo "== $label rc=$? ${SECONDS}s"
  "$NCU" -i "$O/$label.ncu-rep" --page details > "$O/$label.details.txt" 2>&1
  "$NCU" -i "$O/$label.ncu-rep" --page source --csv --print-source sass > "$O/$label.sass.csv" 2>&1
  grep -E "Duration|DRAM Throughput|Memory Throughput|L2 Cache Throughput|Compute \(SM\) Throughput|Issue Slots Busy|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|Warp Cycles Per Issued|No Eligible|Executed Ipc Active|Grid Size|Block Size|Waves Per SM" \
    "$O/$label.details.txt" | head -30
  rm -f "$O/$label.ncu-rep.gz"; gzip -k "$O/$label.ncu-rep" 2>/dev/null; rm -f "$O/$label.ncu-rep"
  pack
}
SECONDS=0
