#!/usr/bin/env python3
"""Predicted against measured device memory: for each model, strategy and
process count, the per-device peak the cost model predicts (the report's
`peak_mem_bytes`, its largest device) against the one the program measures
(--metrics' `peak_mem_bytes`, its largest rank) after one training step.

  memory_prediction.py --bin BUILD/bin --work DIR --model M.mlir ...
      [--devices 2,4] [--strategies data,model,layerwise] [--tolerance 0.15]

Prints one line per case, "PASS" or "FAIL", with both numbers and their
ratio, and exits non-zero when a prediction is off by more than the
tolerance (relative to the measurement).
"""
import argparse
import json
import os
import subprocess
import sys


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s failed (%d):\n%s%s" % (
            " ".join(cmd), r.returncode, r.stdout[-2000:], r.stderr[-2000:]))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--model", action="append", required=True)
    p.add_argument("--devices", default="2,4")
    p.add_argument("--strategies", default="data,model,layerwise")
    p.add_argument("--tolerance", type=float, default=0.15)
    args = p.parse_args()
    os.makedirs(args.work, exist_ok=True)
    failed = cases = 0
    for model in args.model:
        name = os.path.splitext(os.path.basename(model))[0]
        for devices in [int(d) for d in args.devices.split(",")]:
            for strategy in args.strategies.split(","):
                tag = os.path.join(args.work, "%s-%s-%d" % (name, strategy,
                                                            devices))
                run([os.path.join(args.bin, "hd-opt"), model,
                     "--layerwise-parallelize=devices=%d machine=cpu "
                     "strategy=%s report=%s.report.json" % (devices, strategy,
                                                            tag),
                     "--hd-insert-transfers", "--hd-lower-to-runtime",
                     "-o", tag + ".low.mlir"])
                run([os.path.join(args.bin, "hd-translate"),
                     "--hd-to-executable", tag + ".low.mlir", "-o",
                     tag + ".exe"])
                run(["mpirun", "-np", str(devices), tag + ".exe", "--steps",
                     "1", "--quiet", "--metrics", tag + ".metrics.json"])
                predicted = json.load(open(tag + ".report.json"))[
                    "peak_mem_bytes"]
                measured = json.load(open(tag + ".metrics.json"))[
                    "peak_mem_bytes"]
                ratio = predicted / measured
                ok = abs(ratio - 1) <= args.tolerance
                failed += not ok
                cases += 1
                print("%s %s %s devices=%d predicted=%d measured=%d "
                      "ratio=%.3f" % ("PASS" if ok else "FAIL", name,
                                      strategy, devices, predicted, measured,
                                      ratio))
    print("%d of %d predictions within %.0f%% of the measured peak" % (
        cases - failed, cases, 100 * args.tolerance))
    # 3, not 1: an exception (a tool that failed) exits with 1, and the
    # negative controls must tell the two apart (expect_failure.py).
    return 3 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
