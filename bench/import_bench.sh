#!/usr/bin/env bash
# Times the front end on the zoo: ONNX import (hd-translate --import-onnx) and
# parse + verify + print of the result (hd-opt), median of N runs each, and
# writes the table into docs/results.md (section "import"; $HD_RESULTS names
# another file).
#   usage: bench/import_bench.sh [build-dir] [runs]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
runs=${2:-7}
bin=$build/bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
hdbench() { /usr/bin/python3 "$root/bench/hdbench.py" "$@"; }

median_ms() { # command... -> median wall time in ms over $runs runs
  local times=()
  for _ in $(seq "$runs"); do
    local t0 t1
    t0=$(date +%s%N); "$@" >/dev/null; t1=$(date +%s%N)
    times+=($(( (t1 - t0) / 1000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]/1000}'
}

{
  echo "## Front end: ONNX import and verification"
  echo
  echo "Command: \`bench/import_bench.sh $build $runs\` (median of $runs runs, wall time)."
  echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(date -u +%Y-%m-%d)."
  echo
  echo "| model | ONNX nodes | hd layers | import ms | hd-opt parse+verify ms |"
  echo "|---|---|---|---|---|"
  # The timed commands call the tools themselves, not through the bench
  # helper, so that Python's start-up is not timed with them.
  for m in alexnet vgg16 inception_v3 resnet50; do
    onnx=$root/models/$m.onnx
    hdbench import "$build" "$onnx" 32 "$tmp/$m.mlir"
    nodes=$(/usr/bin/python3 -c "import onnx,sys; print(len(onnx.load(sys.argv[1]).graph.node))" "$onnx")
    layers=$(grep -c '= hd\.' "$tmp/$m.mlir")
    imp=$(median_ms "$bin/hd-translate" --import-onnx "$onnx" --batch-size=32 -o "$tmp/x.mlir")
    opt=$(median_ms "$bin/hd-opt" "$tmp/$m.mlir" -o "$tmp/y.mlir")
    echo "| $m | $nodes | $layers | $imp | $opt |"
  done
} > "$tmp/section.md"
cat "$tmp/section.md"
hdbench section import < "$tmp/section.md"
