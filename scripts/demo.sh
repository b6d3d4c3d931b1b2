#!/usr/bin/env bash
# `make demo`: the main job on real models. Imports torchvision's AlexNet and
# Inception-v3 from ONNX into hd training graphs and prints, per layer, the
# op, output shape, parameters and forward FLOPs.
#   usage: scripts/demo.sh [build-dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
bin=$build/bin
out=$build/demo
mkdir -p "$out"

banner() { printf '\n== %s\n' "$*"; }

banner "AlexNet: import (batch 32)"
echo "\$ hd-translate --import-onnx models/alexnet.onnx --batch-size=32 -o $out/alexnet.mlir"
"$bin/hd-translate" --import-onnx "$root/models/alexnet.onnx" --batch-size=32 \
  -o "$out/alexnet.mlir"
echo "\$ hd-opt $out/alexnet.mlir --hd-layer-summary -o /dev/null"
"$bin/hd-opt" "$out/alexnet.mlir" --hd-layer-summary -o /dev/null

banner "Inception-v3: import (batch 32, 299x299)"
echo "\$ hd-translate --import-onnx models/inception_v3.onnx --batch-size=32 -o $out/inception_v3.mlir"
"$bin/hd-translate" --import-onnx "$root/models/inception_v3.onnx" \
  --batch-size=32 -o "$out/inception_v3.mlir"
"$bin/hd-opt" "$out/inception_v3.mlir" --hd-layer-summary -o /dev/null \
  > "$out/inception_v3.summary.txt"
# 311 layers: show the stem and the classifier, the full table is on disk.
head -n 13 "$out/inception_v3.summary.txt"
echo "   ... $(($(wc -l < "$out/inception_v3.summary.txt") - 18)) more layers ..."
tail -n 5 "$out/inception_v3.summary.txt"

banner "Outputs"
echo "  $out/alexnet.mlir, $out/inception_v3.mlir (hd dialect)"
echo "  $out/inception_v3.summary.txt (full per-layer table)"
