# -*- Python -*-
# Runs hd's GoogleTest unit tests as lit tests, one lit test per gtest case.

import os

import lit.formats

config.name = "hd-unit"
config.suffixes = []
config.test_source_root = os.path.join(config.hd_obj_root, "unittests")
config.test_exec_root = config.test_source_root
config.test_format = lit.formats.GoogleTest(".", "Tests")

# Where the driver lists a GPU, the CUDA device tests must run it: a GPU
# whose driver, cuDNN, cuBLAS or NCCL does not start them fails them
# instead of skipping (HDCudaTests skips only where there is no GPU).
import shutil
import subprocess
if shutil.which("nvidia-smi"):
    try:
        listing = subprocess.run(["nvidia-smi", "-L"], capture_output=True,
                                 text=True, timeout=60).stdout
        if any(line.startswith("GPU ") for line in listing.splitlines()):
            config.environment["HD_REQUIRE_GPU"] = "1"
    except (OSError, subprocess.SubprocessError):
        pass

import sys
sys.path.insert(0, os.path.join(config.hd_src_root, "test", "sanitizers"))
import lit_sanitizers
lit_sanitizers.configure(config)
