#!/usr/bin/env bash
# The GPU validation, one prepared run that fits a 15-minute device budget.
# Runs on the GPU machine from the repository root, with the bundle that
# bench/gpu/prepare.sh made here (that machine has no MLIR):
#   0. the CUDA device's kernels against the CPU device's (HDCudaTests);
#   1. parity: the CUDA backend against the CPU backend on six small CNNs,
#      5 steps with TF32 off (the CPU losses came with the bundle);
#   2. hd's images/s on one GPU: AlexNet, VGG-16, ResNet-50, Inception-v3 at
#      batch 32, 64 and 128 (median step after warm-up), plain runs; cuDNN's
#      algorithm choices at batch 64; batch 64 again with --metrics, for
#      the memory and the metrics' cost;
#   3. PyTorch eager on the same GPU, same models, batches and optimizer;
#   4. every layer of those models timed on the GPU (hdrt-profile-cuda), for
#      the cost model's prediction of the same steps, and the GPU's dense
#      and memory rates and launch cost (hdrt-profile-cuda calibrate);
#   5. with two GPUs or more: the parity programs on 2 GPUs against the
#      1-GPU run, and ResNet-50 at 32 images per GPU (data, owt,
#      layer-wise) against PyTorch DDP (torchrun).
# Everything lands in OUT-DIR; bench/gpu/report.py OUT-DIR then writes the
# "gpu" section of docs/results.md here.
#
# usage: bench/gpu/run.sh OUT-DIR [--steps N]
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bundle=$root/bench/gpu/bundle
out=${1:?usage: bench/gpu/run.sh OUT-DIR [--steps N]}
steps=25
[ "${2:-}" = "--steps" ] && steps=${3:?}
mkdir -p "$out"
[ -d "$bundle/bin" ] || { echo "run.sh: no bundle; run bench/gpu/prepare.sh first" >&2; exit 1; }

# CUDA, cuDNN, NCCL and cuBLAS from that machine: PyTorch's wheels, or the
# toolkit. The bundle brings the runtime and Open MPI, whose plugins are
# found through the MCA paths; a lone process needs no mpirun.
cuda_dirs=$(python3 - <<'PY'
import glob, os, site, sys
roots = site.getsitepackages() + [site.getusersitepackages()]
wanted = ["libcudnn.so.9", "libnccl.so.2", "libcublas.so.13", "libcudart.so.13"]
found = []
for lib in wanted:
    hits = [h for r in roots for h in glob.glob(os.path.join(r, "nvidia", "**", lib), recursive=True)]
    hits += glob.glob("/usr/local/cuda*/lib*/" + lib)
    if hits and os.path.dirname(hits[0]) not in found:
        found.append(os.path.dirname(hits[0]))
    if not hits:
        print("run.sh: %s not found" % lib, file=sys.stderr)
print(":".join(found))
PY
)
export LD_LIBRARY_PATH=$bundle/lib:$cuda_dirs:${LD_LIBRARY_PATH:-}
export OMPI_MCA_mca_base_component_path=$bundle/lib/openmpi
export PMIX_MCA_mca_base_component_path=$bundle/lib/pmix
export OMPI_MCA_ess_singleton_isolated=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; } > "$out/gpu.txt" 2>&1
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH" > "$out/env.txt"
ldd "$bundle/bin/parity-small_cnn" >> "$out/env.txt" 2>&1

start=$(date +%s)
# On this machine a GPU that does not start is a failure, not a skip.
HD_REQUIRE_GPU=1 timeout 120 "$bundle/bin/HDCudaTests" > "$out/cuda-tests.log" 2>&1
echo "cuda tests: exit $? ($(( $(date +%s) - start )) s)"
for m in small_cnn alexnet_small shuffle_blocks convnext_blocks binary_broadcast \
    channel_operands; do
  timeout 120 "$bundle/bin/parity-$m" --steps 5 --seed 1 --lr 0.05 --quiet \
    --no-tf32 --metrics "$out/parity-$m.json" > "$out/parity-$m.log" 2>&1
  echo "parity $m: exit $?"
done
# Plain runs give the images/s (batch 64 also logs cuDNN's algorithm
# choices); a second batch-64 run with --metrics gives the memory and
# what the metrics' timing costs.
for m in alexnet vgg16 resnet50 inception_v3; do
  for b in 32 64 128; do
    log=""
    [ "$b" = 64 ] && log=--log-conv-algorithms
    timeout 60 "$bundle/bin/$m-b$b" --steps "$steps" $log \
      > "$out/hd-$m-$b.log" 2> "$out/hd-$m-$b.err"
    echo "hd $m batch $b: exit $? ($(( $(date +%s) - start )) s)"
  done
  timeout 60 "$bundle/bin/$m-b64" --steps "$steps" \
    --metrics "$out/hd-$m-64.json" > "$out/hd-$m-64-metrics.log" 2>&1
  echo "hd $m batch 64 with metrics: exit $? ($(( $(date +%s) - start )) s)"
done
PYTHONUNBUFFERED=1 timeout 240 python3 "$root/bench/gpu/pytorch_baseline.py" \
  --steps "$steps" --out "$out/pytorch.json" > "$out/pytorch.log" 2>&1
echo "pytorch: exit $? ($(( $(date +%s) - start )) s)"
timeout 200 "$bundle/bin/hdrt-profile-cuda" "$bundle/jobs.txt" -o "$out/times.txt" \
  --repeats 5 > "$out/profile.log" 2>&1
echo "profile: exit $? ($(( $(date +%s) - start )) s)"
timeout 60 "$bundle/bin/hdrt-profile-cuda" calibrate -o "$out/calibration.txt" \
  > "$out/calibration.log" 2>&1
echo "calibrate: exit $? ($(( $(date +%s) - start )) s)"
# Two GPUs or more: parity of 2-GPU runs with the 1-GPU run, and ResNet-50
# at 32 images per GPU under three strategies against PyTorch DDP.
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
if [ "$gpus" -ge 2 ]; then
  mpi="env OPAL_PREFIX=$bundle/ompi $bundle/ompi/bin/mpirun --oversubscribe \
    -x LD_LIBRARY_PATH -x OMPI_MCA_mca_base_component_path -x PMIX_MCA_mca_base_component_path"
  [ -x "$bundle/ompi/bin/mpirun" ] || mpi=mpirun
  for m in small_cnn alexnet_small; do
    for s in data layerwise; do
      timeout 120 $mpi -np 2 "$bundle/bin/multi-parity-$m-$s" --steps 5 \
        --seed 1 --lr 0.05 --quiet --no-tf32 \
        --metrics "$out/multi-parity-$m-$s.json" > "$out/multi-parity-$m-$s.log" 2>&1
      echo "2-GPU parity $m $s: exit $?"
    done
  done
  for s in data owt layerwise; do
    timeout 90 $mpi -np 2 "$bundle/bin/multi-resnet50-$s" --steps "$steps" \
      > "$out/multi-resnet50-$s.log" 2>&1
    echo "2-GPU resnet50 $s: exit $? ($(( $(date +%s) - start )) s)"
  done
  PYTHONUNBUFFERED=1 timeout 150 torchrun --standalone --nproc_per_node 2 \
    "$root/bench/gpu/ddp_baseline.py" --steps "$steps" \
    --out "$out/ddp.json" > "$out/ddp.log" 2>&1
  echo "pytorch ddp: exit $? ($(( $(date +%s) - start )) s)"
fi
for ref in "$bundle"/ref/*.json; do cp "$ref" "$out/cpu-$(basename "$ref")"; done
