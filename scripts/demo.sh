#!/usr/bin/env bash
# `make demo`: the main job on real models. Imports torchvision's AlexNet and
# Inception-v3 from ONNX into hd training graphs and prints, per layer, the
# op, output shape, parameters and forward FLOPs; searches the best
# layer-wise strategy for AlexNet on the paper's 16 P100s and compares it
# with data, model and OWT parallelism; then calibrates this host, compiles
# a small CNN with its optimal strategy for one process per core (2 to 4)
# and trains it under mpirun, predicted against measured; last,
# trains a PyTorch LeNet on Fashion-MNIST from its exported weights and
# hands the trained model back to PyTorch.
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

# One process per core, up to 4: more would share cores, each of them
# slower than one process alone.
cores=$(nproc)
procs=$(( cores < 4 ? cores : 4 ))
(( procs < 2 )) && procs=2
banner "A small CNN trained on $procs CPU processes: calibrate this host, search, compile, mpirun -np $procs"
(( cores < procs )) && echo "   (this host has $cores core: its $procs processes share it, so they run slower than one would)"
# Inception-style branches and a residual add on 32x32 images.
mpirun=(mpirun --oversubscribe)
[ "$(id -u)" = 0 ] && mpirun+=(--allow-run-as-root)
"$bin/hd-translate" --import-onnx "$root/models/demo_cnn.onnx" --batch-size=32 \
  -o "$out/demo_cnn.mlir"
# The search predicts this host's step only once it knows its speeds: the
# kernels and MPI (calibrate), and every layer tile it may choose (profile).
# Measured afresh: an earlier run's figures may be another build's.
rm -f "$out/host.json" "$out/demo_cnn.profile.json"
echo "\$ mpirun -np $procs hd-profile calibrate -o host.json"
"${mpirun[@]}" -np "$procs" "$bin/hd-profile" calibrate -o "$out/host.json"
echo "\$ mpirun -np $procs hd-profile demo_cnn.mlir --devices=$procs -o demo_cnn.profile.json"
"${mpirun[@]}" -np "$procs" "$bin/hd-profile" "$out/demo_cnn.mlir" \
  --devices="$procs" -o "$out/demo_cnn.profile.json" 2> "$out/demo_cnn.profile.log"
tail -n 1 "$out/demo_cnn.profile.log"
echo "\$ hd-opt demo_cnn.mlir --layerwise-parallelize='devices=$procs machine=host.json profile=demo_cnn.profile.json print=true' --hd-insert-transfers --hd-lower-to-runtime"
"$bin/hd-opt" "$out/demo_cnn.mlir" -o "$out/demo_cnn.par.mlir" \
  --layerwise-parallelize="devices=$procs machine=$out/host.json profile=$out/demo_cnn.profile.json print=true report=$out/demo_cnn.json" \
  --hd-insert-transfers
echo "   $(grep -c 'hd.transfer' "$out/demo_cnn.par.mlir") transfers and $(grep -c 'hd.grad_sync' "$out/demo_cnn.par.mlir") gradient syncs made explicit ($out/demo_cnn.par.mlir)"
"$bin/hd-opt" "$out/demo_cnn.par.mlir" --hd-lower-to-runtime -o "$out/demo_cnn.low.mlir"
echo "\$ hd-translate --hd-to-executable demo_cnn.low.mlir -o demo_cnn"
"$bin/hd-translate" --hd-to-executable "$out/demo_cnn.low.mlir" -o "$out/demo_cnn"
echo "\$ mpirun -np $procs demo_cnn --steps 20 --lr 0.1 --metrics demo_cnn.metrics.json"
"${mpirun[@]}" -np "$procs" "$out/demo_cnn" --steps 20 --lr 0.1 \
  --metrics "$out/demo_cnn.metrics.json"
# The same training on one process: parallel == serial.
"$bin/hd-opt" "$out/demo_cnn.mlir" --layerwise-parallelize="devices=1" \
  --hd-insert-transfers --hd-lower-to-runtime -o "$out/demo_cnn1.low.mlir"
"$bin/hd-translate" --hd-to-executable "$out/demo_cnn1.low.mlir" -o "$out/demo_cnn1"
"${mpirun[@]}" -np 1 "$out/demo_cnn1" --steps 20 --lr 0.1 --quiet \
  --metrics "$out/demo_cnn1.metrics.json"
/usr/bin/python3 - "$out" "$procs" <<'PY'
import json, sys
out, procs = sys.argv[1], int(sys.argv[2])
many = json.load(open(f"{out}/demo_cnn.metrics.json"))
one = json.load(open(f"{out}/demo_cnn1.metrics.json"))
predicted = json.load(open(f"{out}/demo_cnn.json"))["predicted_ms"]
def diff(steps):
    return max(abs(a - b) / abs(b) for a, b in zip(many["losses"][:steps], one["losses"][:steps]))
measured = many["mean_step_ms"]
print(f"loss curve: {' '.join(f'{l:.3f}' for l in many['losses'])}")
print(f"{procs} processes: predicted {predicted:.1f} ms per step (calibrated), measured "
      f"{measured:.1f} ms (the prediction is {(predicted - measured) / measured * 100:+.0f}%): "
      f"kernels {many['kernel_ms']:.1f}, transfers {many['transfer_ms']:.1f}, "
      f"sync {many['sync_ms']:.1f}, runtime overhead {many['overhead_ms']:.1f}")
print(f"1 process:   {one['mean_step_ms']:.1f} ms per step; {procs} processes are "
      f"{one['mean_step_ms'] / measured:.2f}x as fast. Largest relative loss "
      f"difference to {procs} processes: {diff(5):.1e} over 5 steps, {diff(20):.1e} over 20 "
      f"(float summation orders differ, and training amplifies it)")
PY

banner "Your model, your data: LeNet from PyTorch, one epoch of Fashion-MNIST on 2 processes"
# The whole flow: export from PyTorch with its initial weights, compile,
# train on the packaged data set starting from those weights, evaluate on
# the test set, and write the trained model back as ONNX, which PyTorch
# then loads and scores.
fashion=/usr/share/datasets/fashion-mnist
echo "\$ python3 models/lenet.py export lenet.onnx"
/usr/bin/python3 "$root/models/lenet.py" export "$out/lenet.onnx"
"$bin/hd-translate" --import-onnx "$out/lenet.onnx" --batch-size=64 \
  -o "$out/lenet.mlir"
echo "\$ hd-opt lenet.mlir --layerwise-parallelize='devices=2 machine=cpu' --hd-insert-transfers --hd-lower-to-runtime; hd-translate --hd-to-executable"
"$bin/hd-opt" "$out/lenet.mlir" --layerwise-parallelize="devices=2 machine=cpu" \
  --hd-insert-transfers --hd-lower-to-runtime -o "$out/lenet.low.mlir"
"$bin/hd-translate" --hd-to-executable "$out/lenet.low.mlir" -o "$out/lenet"
normalize=(--mean 0.286 --std 0.353)
echo "\$ mpirun -np 2 lenet --init lenet.onnx --data $fashion/train-images-idx3-ubyte.gz --eval-data $fashion/t10k-images-idx3-ubyte.gz --epochs 1 --shuffle ${normalize[*]} --lr 0.05 --log-every 200 --export-onnx lenet.trained.onnx"
"${mpirun[@]}" -np 2 "$out/lenet" --init "$out/lenet.onnx" \
  --data "$fashion/train-images-idx3-ubyte.gz" \
  --eval-data "$fashion/t10k-images-idx3-ubyte.gz" --epochs 1 --shuffle \
  "${normalize[@]}" --lr 0.05 --log-every 200 \
  --export-onnx "$out/lenet.trained.onnx" --metrics "$out/lenet.metrics.json"
/usr/bin/python3 "$root/models/lenet.py" evaluate "$out/lenet.trained.onnx" \
  "${normalize[@]}"

banner "Outputs"
echo "  $out/alexnet.mlir, $out/inception_v3.mlir (hd dialect)"
echo "  $out/inception_v3.summary.txt (full per-layer table)"
echo "  $out/alexnet.par.mlir (every layer annotated with #hd.pconfig)"
echo "  $out/alexnet.layerwise.json (report; re-import with import=)"
echo "  $out/alexnet.layerwise.dot (Graphviz: dot -Tpng ... > strategy.png)"
echo "  $out/demo_cnn.par.mlir (explicit transfers and syncs), $out/demo_cnn.low.mlir (runtime calls)"
echo "  $out/host.json, $out/demo_cnn.profile.json (this host's calibration and layer profile)"
echo "  $out/demo_cnn (the $procs-device program: mpirun -np $procs $out/demo_cnn --help)"
echo "  $out/lenet.trained.onnx (LeNet after one epoch, for PyTorch or any ONNX runtime)"
