#!/usr/bin/env bash
# Regenerates models/*.mlir from models/*.onnx: the zoo's training graphs at
# batch 32 (Inception-v3 keeps its 299x299 images). The lit suite checks that
# the checked-in files match a fresh import, so run this after changing the
# importer or the dialect's printed form.
#   usage: models/regenerate.sh [path/to/hd-translate]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
translate=${1:-$here/../build/bin/hd-translate}
for m in alexnet vgg16 inception_v3 resnet50; do
  "$translate" --import-onnx "$here/$m.onnx" --batch-size=32 -o "$here/$m.mlir"
  echo "models/$m.mlir: $(grep -c '= hd\.' "$here/$m.mlir") layers"
done
