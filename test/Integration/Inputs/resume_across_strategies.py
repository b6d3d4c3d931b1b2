#!/usr/bin/env python3
"""Checkpoint/resume across strategies: an uninterrupted run of STEPS steps
under one strategy, and the same training split in two: the first part under
a second strategy and process count, resumed under a third. The resumed
steps' losses must equal the uninterrupted run's.

  resume_across_strategies.py --bin BUILD/bin --model M.mlir --work DIR
      --run STRATEGY:DEVICES --first STRATEGY:DEVICES:STEPS
      --second STRATEGY:DEVICES [--steps N]
"""
import argparse
import json
import os
import subprocess
import sys

from parallel_equals_serial import TOLERANCE, run


def compile_for(args, strategy, devices):
    low = os.path.join(args.work, "%s-%s.low.mlir" % (strategy, devices))
    exe = os.path.join(args.work, "%s-%s.exe" % (strategy, devices))
    run([os.path.join(args.bin, "hd-opt"), args.model,
         "--layerwise-parallelize=devices=%s machine=cpu strategy=%s" % (
             devices, strategy), "--hd-insert-transfers",
         "--hd-lower-to-runtime", "-o", low])
    run([os.path.join(args.bin, "hd-translate"), "--hd-to-executable", low,
         "-o", exe])
    return exe


def train(args, spec, steps, extra, metrics):
    strategy, devices = spec.split(":")[:2]
    exe = compile_for(args, strategy, devices)
    run(["mpirun", "-np", devices, exe, "--steps", str(steps), "--seed", "3",
         "--quiet", "--metrics", metrics] + extra, timeout=300)
    with open(metrics) as f:
        return json.load(f)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--run", required=True)
    p.add_argument("--first", required=True)
    p.add_argument("--second", required=True)
    p.add_argument("--steps", type=int, default=6)
    args = p.parse_args()
    os.makedirs(args.work, exist_ok=True)
    ckpt = os.path.join(args.work, "ckpt")
    os.makedirs(ckpt, exist_ok=True)

    whole = train(args, args.run, args.steps, [],
                  os.path.join(args.work, "whole.json"))["losses"]
    split = int(args.first.split(":")[2])
    first = train(args, args.first, split, ["--checkpoint", ckpt],
                  os.path.join(args.work, "first.json"))
    second = train(args, args.second, args.steps,
                   ["--checkpoint", ckpt, "--resume"],
                   os.path.join(args.work, "second.json"))
    losses = first["losses"] + second["losses"]
    print("uninterrupted %s: %s" % (args.run, " ".join(
        "%.6f" % l for l in whole)))
    print("%s then %s from step %d: %s" % (
        args.first, args.second, second["first_step"],
        " ".join("%.6f" % l for l in losses)))
    ok = len(losses) == len(whole) and second["first_step"] == split + 1
    err = max(abs(a - b) / abs(b) for a, b in zip(losses, whole))
    ok = ok and err <= TOLERANCE
    print("%s resume: max relative loss error %.2e" % (
        "PASS" if ok else "FAIL", err))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
