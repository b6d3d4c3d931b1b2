#!/usr/bin/env python3
"""Writes the "gpu" section of docs/results.md from what bench/gpu/run.sh
left in OUT-DIR on the GPU machine: the CUDA-vs-CPU parity check, hd's
images/s against PyTorch eager on the same GPU, and the cost model's
prediction of the batch-64 steps from the layer times measured there.

usage: bench/gpu/report.py OUT-DIR [build-dir]
Exits non-zero when the parity check fails or a run left no result.
"""
import json
import math
import os
import re
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from hdbench import (ROOT, ToolError, import_onnx, run, search, tool,  # noqa: E402
                     write_section, zoo_model)

MODELS = ["alexnet", "vgg16", "resnet50", "inception_v3"]
BATCHES = [32, 64, 128]
WARMUP = 5
# As test/GPU/cuda-equals-cpu.test: fp32 in other summation orders.
PARITY = 1e-4
PARITY_MODELS = ["small_cnn", "alexnet_small", "shuffle_blocks",
                 "convnext_blocks", "binary_broadcast", "channel_operands"]


def hd_images_per_s(log):
    """The median images/s of the steps after warm-up, or None."""
    rates, losses = [], []
    for m in re.finditer(r"^step (\d+) loss (\S+) (\S+) images/s", log, re.M):
        losses.append(float(m.group(2)))
        if int(m.group(1)) > WARMUP:
            rates.append(float(m.group(3)))
    if not rates or not all(math.isfinite(x) for x in losses):
        return None
    return statistics.median(rates)


def predictions(out, build):
    """Predicted ms per batch-64 step on one GPU (data parallelism on one
    device is the layers in sequence) from the layer times measured there;
    {} when there are none."""
    times = os.path.join(out, "times.txt")
    if not os.path.exists(times):
        return {}
    tmp = tempfile.mkdtemp(prefix="hd-gpu-report-")
    db = os.path.join(tmp, "gpu.profile.json")
    run([tool(build, "hd-profile"), "--import-times=" + times, "-o", db])
    predicted = {}
    for m in MODELS:
        src = import_onnx(build, zoo_model(m), os.path.join(tmp, m + ".mlir"),
                          64)
        r = search(build, src, os.path.join(tmp, m + ".json"), 1, "h200-node",
                   "data", db)
        measured = sum(l["time_source"] == "profile" for l in r["layers"])
        predicted[m] = (r["predicted_ms"], measured, len(r["layers"]),
                        r["peak_mem_bytes"])
    return predicted


def calibration(out, build):
    """The GPU's measured rates (hdrt-profile-cuda calibrate, made into a
    machine file by hd-profile --import-calibration) beside the built-in
    h200-node's datasheet figures."""
    cal = os.path.join(out, "calibration.txt")
    if not os.path.exists(cal):
        return ["", "Calibration: no result."]
    tmp = tempfile.mkdtemp(prefix="hd-gpu-calibration-")
    machine = os.path.join(tmp, "gpu.json")
    try:
        run([tool(build, "hd-profile"), "--import-calibration=" + cal,
             "--machine=h200-node", "-o", machine])
    except ToolError as e:
        return ["", "Calibration: not imported (%s)." % str(e).splitlines()[0]]
    m = json.load(open(machine))
    base = json.load(open(os.path.join(ROOT, "lib", "CostModel", "machines",
                                       "h200-node.json")))
    effective = base["peak_gflops"] * base.get("efficiency", 1)
    return ["", "The GPU's own rates (`hdrt-profile-cuda calibrate`, a 3x3 "
            "convolution of 256 channels at 56x56, batch 64; a ReLU of 256 MiB; "
            "a ReLU of 8 values), beside `h200-node`'s figures:", "",
            "| figure | measured | h200-node |", "|---|---|---|",
            "| dense GFLOP/s (with TF32) | %.0f | %.0f (peak x efficiency) |" % (
                m["peak_gflops"], effective),
            "| memory GB/s | %.0f | %.0f |" % (m["mem_gbps"], base["mem_gbps"]),
            "| launch us | %.1f | %.1f |" % (m["launch_us"], base["launch_us"])]


def multi_gpu(out, read):
    """The 2-GPU section: each parity model's 2-GPU losses against its
    1-GPU run, and ResNet-50 at 32 images per GPU against PyTorch DDP; a
    line saying why not where the machine had one GPU."""
    try:
        gpus = read("gpu.txt").count("GPU ")
    except OSError:
        gpus = 0
    if gpus < 2:
        return ["", "Two GPUs: not run (the machine had %d)." % gpus]
    lines = ["", "Two GPUs: the parity models' 2-GPU runs against their 1-GPU "
             "run (5 steps, TF32 off, within %g), and ResNet-50 at 32 images "
             "per GPU against PyTorch DDP (torchrun, cuDNN autotuner on)." %
             PARITY, "", "| parity model | strategy | largest relative error "
             "| within |", "|---|---|---|---|"]
    for m in ["small_cnn", "alexnet_small"]:
        for s in ["data", "layerwise"]:
            try:
                one = json.load(open(os.path.join(out, "parity-%s.json" % m)))["losses"]
                two = json.load(open(os.path.join(
                    out, "multi-parity-%s-%s.json" % (m, s))))["losses"]
                err = max(abs(a - b) / max(abs(a), 1e-12)
                          for a, b in zip(one, two))
                good = len(one) == len(two) and err <= PARITY
                lines.append("| %s | %s | %.2e | %s |" % (
                    m, s, err, "yes" if good else "**no**"))
            except (OSError, ValueError, KeyError):
                lines.append("| %s | %s | no result | |" % (m, s))
    try:
        ddp = json.load(open(os.path.join(out, "ddp.json")))["images_per_s"]
    except (OSError, ValueError, KeyError):
        ddp = None
    lines += ["", "| ResNet-50, 2 GPUs x 32 | hd images/s | DDP images/s "
              "| hd / DDP |", "|---|---|---|---|"]
    for s in ["data", "owt", "layerwise"]:
        try:
            hd = hd_images_per_s(read("multi-resnet50-%s.log" % s))
        except OSError:
            hd = None
        lines.append("| %s | %s | %s | %s |" % (
            s, "%.1f" % hd if hd else "no result",
            "%.1f" % ddp if ddp else "no result",
            "%.2f" % (hd / ddp) if hd and ddp else ""))
    return lines


def main():
    out = sys.argv[1]
    build = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "build")
    read = lambda name: open(os.path.join(out, name)).read()
    lines = ["## GPU: CUDA backend on one GPU", "",
             "Command: `bench/gpu/prepare.sh` here, `bench/gpu/run.sh OUT` on "
             "the GPU machine, `bench/gpu/report.py OUT` (writes this "
             "section). GPU: %s." % read("gpu.txt").strip().replace("\n", "; "),
             ""]
    ok = True
    # The device kernels against the CPU's: gtest's summary lines.
    try:
        tests = [l for l in read("cuda-tests.log").splitlines()
                 if l.startswith(("[  PASSED  ]", "[  FAILED  ]",
                                  "[  SKIPPED ]"))]
    except OSError:
        tests = []
    passed = any(l.startswith("[  PASSED  ]") for l in tests) and not any(
        l.startswith(("[  FAILED  ]", "[  SKIPPED ]")) for l in tests)
    ok &= passed
    lines += ["CUDA device against the CPU device (`HDCudaTests`): " +
              ("; ".join(t.strip().rstrip(".") for t in tests) or
               "no result") + ".", ""]
    lines += ["| parity model | CPU loss, step 5 | CUDA loss, step 5 | largest "
              "relative error, 5 steps | within %g |" % PARITY, "|---|---|---|---|---|"]
    for m in PARITY_MODELS:
        try:
            cpu = json.load(open(os.path.join(out, "cpu-parity-%s.json" % m)))["losses"]
            gpu = json.load(open(os.path.join(out, "parity-%s.json" % m)))["losses"]
            err = max(abs(a - b) / abs(a) for a, b in zip(cpu, gpu))
            good = len(cpu) == len(gpu) == 5 and err <= PARITY
            lines.append("| %s | %.6f | %.6f | %.2e | %s |" % (
                m, cpu[-1], gpu[-1], err, "yes" if good else "**no**"))
        except (OSError, ValueError, KeyError, ZeroDivisionError) as e:
            good = False
            lines.append("| %s | | | no result (%s) | **no** |" % (m, e))
        ok &= good
    try:
        torch = json.load(open(os.path.join(out, "pytorch.json")))
    except (OSError, ValueError):
        torch = {"images_per_s": {}}
    lines += ["", "PyTorch %s (cuDNN %s), eager, fp32, channels-first, SGD; "
              "hd with its defaults (TF32 in convolutions, as PyTorch). "
              "Images/s: the median step after %d of warm-up." % (
                  torch.get("torch", "?"), torch.get("cudnn", "?"), WARMUP), "",
              "| model | batch | hd images/s | PyTorch images/s | hd / PyTorch |",
              "|---|---|---|---|---|"]
    for m in MODELS:
        for b in BATCHES:
            try:
                hd = hd_images_per_s(read("hd-%s-%d.log" % (m, b)))
            except OSError:
                hd = None
            pt = torch["images_per_s"].get("%s-%d" % (m, b))
            ok &= hd is not None and pt is not None
            fmt = lambda x: "%.1f" % x if x else "no result"
            lines.append("| %s | %d | %s | %s | %s |" % (
                m, b, fmt(hd), fmt(pt), "%.2f" % (hd / pt) if hd and pt else ""))
    lines += ["", "What `--metrics` costs (its per-category times come from "
              "CUDA events, read at the end of each step): images/s at batch "
              "64 of the plain run and of the run with `--metrics`.", "",
              "| model | plain | with --metrics | cost |", "|---|---|---|---|"]
    for m in MODELS:
        try:
            plain = hd_images_per_s(read("hd-%s-64.log" % m))
            timed = hd_images_per_s(read("hd-%s-64-metrics.log" % m))
        except OSError:
            plain = timed = None
        if not plain or not timed:
            ok = False
            lines.append("| %s | | | no result |" % m)
            continue
        lines.append("| %s | %.1f | %.1f | %+.1f%% |" % (
            m, plain, timed, 100 * (plain - timed) / plain))
    lines += ["", "cuDNN's algorithms at batch 64 (`--log-conv-algorithms`): "
              "the convolution shapes timed, and the time the three "
              "directions' choices took per step.", "",
              "| model | shapes | fwd + bwd ms at the choices |", "|---|---|---|"]
    for m in MODELS:
        try:
            plans = re.findall(r"fwd algo \d+ \((\S+) ms\), bwd-data algo "
                               r"\d+ \((\S+) ms\), bwd-filter algo \d+ "
                               r"\((\S+) ms\)", read("hd-%s-64.err" % m))
        except OSError:
            plans = []
        total = sum(float(x) for p in plans for x in p if float(x) >= 0)
        lines.append("| %s | %d | %s |" % (
            m, len(plans), "%.2f" % total if plans else "no log"))
    lines += calibration(out, build)
    lines += multi_gpu(out, read)
    predicted = predictions(out, build)
    lines += ["", "The cost model on the same GPU: each layer timed there "
              "(`hdrt-profile-cuda`, forward + backward + update), summed by "
              "the search's model for one device, against the measured step "
              "at batch 64; and its device memory (the report's "
              "`peak_mem_bytes`) against the program's measured peak "
              "(`--metrics`, cuDNN's workspace included, which the model "
              "leaves out).", "",
              "| model | layers measured | predicted ms | measured ms | error "
              "| predicted peak MiB | measured peak MiB | error |",
              "|---|---|---|---|---|---|---|---|"]
    for m in MODELS:
        try:
            hd = hd_images_per_s(read("hd-%s-64.log" % m))
        except OSError:
            hd = None
        if m not in predicted or not hd:
            ok = False
            lines.append("| %s | | | | no result |" % m)
            continue
        ms, measured, layers, peak = predicted[m]
        step = 64 / hd * 1e3
        try:
            used = json.load(open(os.path.join(out, "hd-%s-64.json" % m)))[
                "peak_mem_bytes"]
            memory = "%.0f | %.0f | %+.1f%%" % (
                peak / 2**20, used / 2**20, 100 * (peak - used) / used)
        except (OSError, ValueError, KeyError, ZeroDivisionError):
            memory = "%.0f | no result | " % (peak / 2**20)
        lines.append("| %s | %d of %d | %.2f | %.2f | %+.1f%% | %s |" % (
            m, measured, layers, ms, step, 100 * (ms - step) / step, memory))
    write_section("gpu", lines)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
