#!/bin/sh
# train_family.sh DIR ARCH [OPSET]: one torchvision family through hd as a
# user would take it, against PyTorch. Builds the model and PyTorch's first
# two steps (torchvision_reference.py), imports the export, searches a
# layer-wise strategy for 2 processes, compiles it, trains 2 steps from the
# exported weights on the same batch, and compares the losses.
set -e
dir=$1 arch=$2 opset=${3:-13}
ref="$(dirname "$0")/torchvision_reference.py"
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
/usr/bin/python3 "$ref" make . "$arch" --opset "$opset"
hd-translate --import-onnx init.onnx --batch-size=4 -o model.mlir
hd-opt model.mlir --layerwise-parallelize="devices=2 machine=cpu" \
  --hd-insert-transfers --hd-lower-to-runtime -o low.mlir
hd-translate --hd-to-executable low.mlir -o train
mpirun -np 2 ./train --init init.onnx --data x.npy --labels y.npy --steps 2 \
  --lr "$(/usr/bin/python3 "$ref" lr .)" --quiet --metrics metrics.json
/usr/bin/python3 "$ref" compare . metrics.json
