#!/usr/bin/env bash
# Runs every hd test suite through lit: the FileCheck regression tests
# (dialect, passes, ONNX import, models, docs) and the GoogleTest unit tests,
# then prints one summary line: "N passed, N failed".
#   usage: scripts/run-tests.sh [build-dir] [extra lit args...]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shift || true
lit=${LIT:-/usr/lib/llvm-22/bin/lit}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# lit runs on Debian's python (its modules live there, not in another python
# first on PATH).
/usr/bin/python3 "$lit" -sv "$@" "$build/test" "$build/test/Unit" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}

count() { sed -n "s/^ *$1 *: *\([0-9]*\).*/\1/p" "$log" | tail -1; }
passed=$(count Passed); passed=${passed:-0}
failed=0
for kind in Failed "Unexpectedly Passed" Unresolved "Timed Out"; do
  n=$(count "$kind"); failed=$((failed + ${n:-0}))
done
unsupported=$(count Unsupported); skipped=$(count Skipped)
skipped=$(( ${unsupported:-0} + ${skipped:-0} ))
why=$(grep -o "GPU tests skipped: [^\"]*" "$log" | head -1)
echo
echo "hd: $passed passed, $failed failed, $skipped skipped${why:+ ($why)}"
if [ "$passed" -eq 0 ]; then
  echo "hd: no test ran" >&2
  exit 1
fi
exit $status
