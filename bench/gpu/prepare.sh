#!/usr/bin/env bash
# Prepares the GPU validation run (bench/gpu/run.sh) on this machine, which
# has MLIR: the GPU machine has none, so every program is compiled here into
# bench/gpu/bundle/ with the runtime and the MPI libraries it loads.
#
#   bin/HDCudaTests          the CUDA device's kernels against the CPU's;
#   bin/parity-<model>       1-GPU programs of the parity check, and
#   ref/parity-<model>.json  the 1-process CPU run they must match;
#   bin/<model>-b<batch>     AlexNet, VGG-16, ResNet-50 and Inception-v3 for
#                            one GPU at batch 32, 64 and 128;
#   bin/multi-*              for a machine with two GPUs or more: parity
#                            programs for 2 GPUs (data and layer-wise), and
#                            ResNet-50 at 32 images per GPU on 2 GPUs under
#                            the data, owt and layer-wise strategies;
#   jobs.txt                 the layers of the batch-64 programs, for
#                            bin/hdrt-profile-cuda to time (the cost model's
#                            prediction of those steps);
#   lib/                     libhdrt_cuda.so, Open MPI and its plugins (CUDA,
#                            cuDNN, NCCL and cuBLAS come from the GPU machine).
#
# usage: bench/gpu/prepare.sh [build-dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
bin=$build/bin
out=$root/bench/gpu/bundle
[ -e "$build/lib/libhdrt_cuda.so" ] && [ -e "$bin/hdrt-profile-cuda" ] || {
  echo "prepare.sh: $build has no libhdrt_cuda.so (configure with -DHD_CUDA=ON where nvcc, cuDNN and NCCL are installed)" >&2
  exit 1
}
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/ref" "$out/work"
cp "$bin/hdrt-profile-cuda" "$build/unittests/HDCudaTests" "$out/bin/"
work=$out/work
# The bench helper (standard library only) imports, compiles and runs, as
# the Python drivers do.
hdbench() { python3 "$root/bench/hdbench.py" "$@"; }

compile() { # model.mlir devices strategy backend exe
  hdbench compile "$build" "$1" "$5" --devices "$2" --machine h200-node \
    --strategy "$3" --backend "$4" --low "$work/low.mlir"
}

# Parity: the small CNN of the tests, AlexNet's layers at 63x63, and the
# blocks of today's CNNs (ShuffleNetV2's and ConvNeXt's units, the binary
# functions with a per-sample or a per-channel operand, frozen or trained),
# 5 steps of the same seed and data; the CPU reference runs here.
inputs=$root/test/Import/ONNX/Inputs
blocks="shuffle_blocks convnext_blocks binary_broadcast channel_operands"
for m in small_cnn $blocks; do
  frozen=
  [ $m = channel_operands ] && frozen=--frozen-tensors=mean,std
  hdbench import "$build" "$inputs/$m.onnx" 6 "$work/$m.mlir" $frozen
done
cp "$root/test/Integration/Inputs/alexnet-small.mlir" "$work/alexnet_small.mlir"
for m in small_cnn alexnet_small $blocks; do
  compile "$work/$m.mlir" 1 data cuda "$out/bin/parity-$m"
  compile "$work/$m.mlir" 1 data cpu "$work/$m-cpu"
  hdbench run "$work/$m-cpu" 1 "$out/ref/parity-$m.json" --steps 5 --seed 1 \
    --lr 0.05 --quiet
done

# Two GPUs, where the machine has them: the parity models' 1-GPU run
# again on 2 GPUs (data and layer-wise), and ResNet-50 at 32 images per
# GPU under each strategy, against PyTorch DDP.
for m in small_cnn alexnet_small; do
  for s in data layerwise; do
    compile "$work/$m.mlir" 2 $s cuda "$out/bin/multi-parity-$m-$s"
  done
done
hdbench import "$build" "$root/models/resnet50.onnx" 64 "$work/resnet50-2x32.mlir"
for s in data owt layerwise; do
  compile "$work/resnet50-2x32.mlir" 2 $s cuda "$out/bin/multi-resnet50-$s"
done

# Throughput: the zoo models at the batches PyTorch runs.
for m in alexnet vgg16 resnet50 inception_v3; do
  for b in 32 64 128; do
    hdbench import "$build" "$root/models/$m.onnx" $b "$work/$m-$b.mlir"
    compile "$work/$m-$b.mlir" 1 data cuda "$out/bin/$m-b$b"
  done
  "$bin/hd-profile" "$work/$m-64.mlir" --devices=1 --emit-jobs \
    -o "$work/jobs-$m.txt" 2> /dev/null
done
sort -u "$work"/jobs-*.txt > "$out/jobs.txt"

# The runtime and what it loads that a machine with CUDA and PyTorch lacks:
# Open MPI (and its plugins), hwloc, libevent, PMIx, and for the kernel
# tests' CPU side oneDNN. Not glibc, libstdc++, or the CUDA libraries.
cp "$build/lib/libhdrt_cuda.so" "$out/lib/"
ldd "$out/bin/parity-small_cnn" "$out/bin/HDCudaTests" | awk '$3 ~ /^\// {print $3}' | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libpthread*|libdl.so*|librt.so*|ld-linux*|libstdc++*|libgcc_s*) ;;
    libcuda*|libcublas*|libcudnn*|libnccl*|libhdrt*) ;;
    *) cp -L "$lib" "$out/lib/" ;;
  esac
done
# mpirun for the 2-GPU runs: Open MPI's launcher and daemon, run with
# OPAL_PREFIX at bundle/ompi, where they find their help texts.
mkdir -p "$out/ompi/bin" "$out/ompi/share"
cp -L /usr/bin/orterun "$out/ompi/bin/mpirun"
cp -L /usr/bin/orted "$out/ompi/bin/"
cp -rL /usr/share/openmpi "$out/ompi/share/"
ldd /usr/bin/orterun /usr/bin/orted | awk '$3 ~ /^\// {print $3}' | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libpthread*|libdl.so*|librt.so*|ld-linux*|libstdc++*|libgcc_s*) ;;
    *) [ -e "$out/lib/$(basename "$lib")" ] || cp -L "$lib" "$out/lib/" ;;
  esac
done
plugins=$(ompi_info --path pkglibdir | sed -n 's/.*Pkglibdir: *//p')
cp -rL "$plugins" "$out/lib/openmpi"
for pmix in /usr/lib/x86_64-linux-gnu/pmix2/lib/pmix; do
  [ -d "$pmix" ] && cp -rL "$pmix" "$out/lib/pmix"
done
for lib in "$out"/lib/openmpi/*.so "$out"/lib/pmix/*.so; do
  ldd "$lib" 2>/dev/null | awk '$3 ~ /^\/(usr\/)?lib/ {print $3}'
done | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libpthread*|libdl.so*|librt.so*|ld-linux*|libstdc++*|libgcc_s*) ;;
    *) [ -e "$out/lib/$(basename "$lib")" ] || cp -L "$lib" "$out/lib/" ;;
  esac
done
rm -rf "$work"
du -sh "$out"
echo "prepare.sh: ready; on the GPU machine run bench/gpu/run.sh OUT-DIR"
