#!/usr/bin/python3
"""Measured training throughput of compiled programs on this host's CPU
processes: the demo CNN (batch 32) and torchvision's AlexNet (batch 16,
224x224) under data parallelism and the layer-wise strategy on 1, 2 and 4
processes, with the runtime's overhead (step time less kernels, transfers and
syncs). Writes the section "cpu-training" of docs/results.md.

usage: bench/cpu_training_bench.py [build-dir]
"""
import os
import platform
import sys
import tempfile

from hdbench import (ROOT, compile_program, import_onnx, read_json,
                     run_program, write_section, zoo_model)

BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
CASES = [("demo_cnn", 32, 12), ("alexnet", 16, 5)]  # model, batch, steps
STRATEGIES = ["data", "layerwise"]
PROCESSES = [1, 2, 4]


def main():
    tmp = tempfile.mkdtemp(prefix="hd-cpu-bench-")
    rows = []
    for model, batch, steps in CASES:
        src = import_onnx(BUILD, zoo_model(model),
                          os.path.join(tmp, model + ".mlir"), batch)
        for n in PROCESSES:
            for strategy in STRATEGIES if n > 1 else ["data"]:
                tag = "%s-%s-%d" % (model, strategy, n)
                exe, report, metrics = (os.path.join(tmp, tag + s) for s in
                                        ("", ".report.json", ".metrics.json"))
                compile_program(BUILD, src, exe, n, "cpu", strategy, report)
                m = run_program(exe, ["--steps", str(steps), "--quiet"],
                                metrics, n, timeout=1800)
                r = read_json(report)
                rows.append((model, batch, strategy, n, m, r["predicted_ms"]))
                print(tag, "%.1f images/s" % m["images_per_s"], flush=True)

    threads = os.environ.get("OMP_NUM_THREADS", "cores / processes")
    out = ["## CPU training throughput, measured",
           "",
           "Command: `bench/cpu_training_bench.py` (writes this section). Machine: "
           "%s, %d cores, %s; one MPI process per device, oneDNN threads per process: "
           "%s. Mean of the steps after the first (which builds oneDNN's kernels); "
           "times are per step, averaged over ranks." % (
               platform.processor() or platform.machine(), os.cpu_count(),
               platform.platform(), threads),
           "",
           "| model | batch | strategy | processes | images/s | step ms | kernels ms "
           "| transfer ms | sync ms | runtime overhead ms | predicted ms (cpu machine) |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for model, batch, strategy, n, m, predicted in rows:
        out.append("| %s | %d | %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |" % (
            model, batch, strategy, n, m["images_per_s"], m["mean_step_ms"],
            m["kernel_ms"], m["transfer_ms"], m["sync_ms"], m["overhead_ms"],
            predicted))
    out += ["",
            "The runtime overhead is the step time less the time inside kernels, "
            "transfers and syncs: input-box copies, gradient zeroing, synthetic "
            "data and bookkeeping (oneDNN's layout reorders run inside the kernel "
            "calls and count as kernel time). Sync includes waiting for the "
            "slowest rank. "
            "The prediction is the cost model's analytic `cpu` machine, not fitted to "
            "this host (issue 5 measures and fits it)."]
    return write_section("cpu-training", out)


if __name__ == "__main__":
    sys.exit(main())
