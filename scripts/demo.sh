#!/usr/bin/env bash
# `make demo`: the main job on real models. Imports torchvision's AlexNet and
# Inception-v3 from ONNX into hd training graphs and prints, per layer, the
# op, output shape, parameters and forward FLOPs; then searches the best
# layer-wise strategy for AlexNet on the paper's 16 P100s and compares it
# with data, model and OWT parallelism.
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

banner "AlexNet on 16 x P100 (p100-cluster): layer-wise search, 32 images per device"
"$bin/hd-translate" --import-onnx "$root/models/alexnet.onnx" --batch-size=512 \
  -o "$out/alexnet_512.mlir"
echo "\$ hd-opt alexnet_512.mlir --layerwise-parallelize='devices=16 machine=p100-cluster print=true report=... dot=...'"
"$bin/hd-opt" "$out/alexnet_512.mlir" -o "$out/alexnet.par.mlir" \
  --layerwise-parallelize="devices=16 machine=p100-cluster print=true report=$out/alexnet.layerwise.json dot=$out/alexnet.layerwise.dot"

banner "Compared with one strategy for every layer"
for s in data model owt; do
  "$bin/hd-opt" "$out/alexnet_512.mlir" -o /dev/null \
    --layerwise-parallelize="devices=16 machine=p100-cluster strategy=$s report=$out/alexnet.$s.json"
done
/usr/bin/python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
r = {s: json.load(open(f"{out}/alexnet.{s}.json")) for s in ("data", "model", "owt", "layerwise")}
lw = r["layerwise"]["predicted_ms"]
print(f"{'strategy':<10} {'ms/iter':>9} {'images/s':>9} {'GB moved':>9} {'layer-wise speedup':>19}")
for s, v in r.items():
    print(f"{s:<10} {v['predicted_ms']:9.2f} {v['images_per_s']:9.0f} "
          f"{v['comm_bytes'] / 1e9:9.2f} {v['predicted_ms'] / lw:18.2f}x")
PY

banner "Outputs"
echo "  $out/alexnet.mlir, $out/inception_v3.mlir (hd dialect)"
echo "  $out/inception_v3.summary.txt (full per-layer table)"
echo "  $out/alexnet.par.mlir (every layer annotated with #hd.pconfig)"
echo "  $out/alexnet.layerwise.json (report; re-import with import=)"
echo "  $out/alexnet.layerwise.dot (Graphviz: dot -Tpng ... > strategy.png)"
