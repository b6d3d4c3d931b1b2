# -*- Python -*-
# lit configuration for hd's regression tests (FileCheck on tool output).

import atexit
import os
import shutil
import socket
import tempfile

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "hd"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.hd_obj_root, "test")
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py",
                   "Unit"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%hd_src", config.hd_src_root))
config.substitutions.append(("%hd_bin", config.hd_tools_dir))
# Debian's python3, which has the onnx module (another python3 may be first
# on PATH).
config.substitutions.append(("%python", "/usr/bin/python3"))
config.substitutions.append(("%models", os.path.join(config.hd_src_root, "models")))
config.substitutions.append(("%hd_docs_build", os.path.join(config.hd_obj_root, "docs")))
# The build's lib dir, where the hdrt target puts libhdrt.so: what
# `hd-translate --hd-to-executable` links and what its programs load.
config.substitutions.append(("%hd_lib_dir", os.path.join(config.hd_obj_root, "lib")))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.hd_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(
    [ToolSubst("hd-opt", unresolved="fatal"),
     ToolSubst("hd-translate", unresolved="fatal"),
     ToolSubst("hd-profile", unresolved="fatal")],
    [config.hd_tools_dir])

# MPI tests run several processes on this machine, possibly as root and with
# more processes than cores; one compute thread each.
for var, value in [("OMPI_ALLOW_RUN_AS_ROOT", "1"),
                   ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"),
                   ("OMPI_MCA_rmaps_base_oversubscribe", "1"),
                   ("OMP_NUM_THREADS", "1")]:
    config.environment[var] = value
# Open MPI makes its session directory (ompi.<host>.<uid>) under its temp
# dir when a process first needs it, and two tests starting MPI at the same
# moment race to make it ("A call to mkdir was unable to create the desired
# directory ... File exists"). They share one made here instead, in a short
# path (its sockets live below it).
ompi_tmp = tempfile.mkdtemp(prefix="hd-ompi-")
os.makedirs(os.path.join(ompi_tmp, "ompi.%s.%d" % (
    socket.gethostname().split(".")[0], os.getuid())), exist_ok=True)
config.environment["OMPI_MCA_orte_tmpdir_base"] = ompi_tmp
atexit.register(shutil.rmtree, ompi_tmp, True)
llvm_config.add_tool_substitutions(
    [ToolSubst("hdrt-mpi-exchange-test", unresolved="fatal"),
     ToolSubst("hdrt-profile", unresolved="fatal"),
     ToolSubst("hdrt-onnx-weights", unresolved="fatal"),
     ToolSubst("hdrt-mpi-checkpoint-test", unresolved="fatal"),
     ToolSubst("hdrt-mpi-gradient-sync-test", unresolved="fatal"),
     ToolSubst("hd-pipeline-fuzzer", unresolved="fatal"),
     ToolSubst("hd-onnx-fuzzer", unresolved="fatal"),
     ToolSubst("hd-json-fuzzer", unresolved="fatal"),
     ToolSubst("hd-data-fuzzer", unresolved="fatal"),
     ToolSubst("hd-onnx-weights-fuzzer", unresolved="fatal")],
    [config.hd_tools_dir])

# The GPU group (test/GPU): `hd-cuda-backend` where libhdrt_cuda.so is
# built, `cuda-device` (and `cuda-devices-2` for two) where a GPU answers.
import shutil
import subprocess

# Only a machine without a GPU skips them: where nvidia-smi lists one, a
# build without the backend is a setup to fix, and the suite fails.
gpus = 0
if shutil.which("nvidia-smi"):
    try:
        listing = subprocess.run(["nvidia-smi", "-L"], capture_output=True,
                                 text=True, timeout=60).stdout
        gpus = sum(line.startswith("GPU ") for line in listing.splitlines())
    except (OSError, subprocess.SubprocessError):
        gpus = 0
if config.hd_cuda.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("hd-cuda-backend")
    if gpus >= 1:
        config.available_features.add("cuda-device")
    if gpus >= 2:
        config.available_features.add("cuda-devices-2")
    if gpus == 0:
        lit_config.note("GPU tests skipped: no CUDA device")
elif gpus >= 1:
    lit_config.error("this machine has %d GPU(s) but the build has no CUDA "
                     "backend: install nvcc, cuDNN 9 and NCCL "
                     "(scripts/bootstrap.sh) and configure with -DHD_CUDA=ON"
                     % gpus)
else:
    lit_config.note("GPU tests skipped: this build has no CUDA backend")

import sys
sys.path.insert(0, os.path.join(config.hd_src_root, "test", "sanitizers"))
import lit_sanitizers
lit_sanitizers.configure(config)
