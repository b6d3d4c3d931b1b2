#!/usr/bin/env bash
# Copies the mlir-tblgen docs (dialect, ops, attributes, interfaces, passes)
# from the build into docs/generated/. `make docs` runs it; the test suite
# fails when the checked-in copies are stale.
#   usage: scripts/update-docs.sh [build-dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
mkdir -p "$root/docs/generated"
for f in HDDialect HDInterfaces HDPasses HDConversionPasses; do
  cp "$build/docs/HD/$f.md" "$root/docs/generated/$f.md"
  echo "docs/generated/$f.md"
done
