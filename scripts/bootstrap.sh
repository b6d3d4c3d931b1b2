#!/usr/bin/env bash
# Installs every Debian package that hd's build and tests need.
# Idempotent: when everything is present it only checks and exits.
#   usage: scripts/bootstrap.sh [fuzz]
# `fuzz` adds what `make fuzz` needs: clang with libFuzzer and the
# sanitizer runtimes.
set -euo pipefail

PACKAGES=(
  # Build tools.
  cmake ninja-build g++ make
  # MLIR / LLVM 22: libraries, mlir-tblgen, and lit/FileCheck/not.
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  # ONNX import; python3-onnx builds the importer's test models and reads
  # ONNX files in the benchmarks.
  libonnx-dev libprotobuf-dev protobuf-compiler python3-onnx
  # Runtime, CPU backend: oneDNN kernels (its CMake package needs OpenCL's
  # headers) and MPI between processes.
  libdnnl-dev ocl-icd-opencl-dev libopenmpi-dev openmpi-bin
  # Runtime, data sets (runtime/data): gzip'd IDX files, and the PNG and JPEG
  # images of an ImageFolder.
  zlib1g-dev libpng-dev libjpeg-dev
  # Unit tests.
  libgtest-dev
  # Training tests and `make demo`: PyTorch is the reference hd's training
  # must reproduce (python3-pil and torchvision read image folders as
  # PyTorch users do), and Fashion-MNIST is the packaged data set.
  python3-torch python3-torchvision python3-numpy python3-pil
  dataset-fashion-mnist
)
if [ "${1:-}" = fuzz ]; then
  # libomp: the runtime, configured with the rest, needs clang's OpenMP.
  PACKAGES+=(clang-22 libclang-rt-22-dev libomp-22-dev)
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "bootstrap: all ${#PACKAGES[@]} packages present"
  exit 0
fi

echo "bootstrap: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "bootstrap: done"
