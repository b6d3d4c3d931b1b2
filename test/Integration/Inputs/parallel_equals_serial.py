#!/usr/bin/env python3
"""Parallel == serial: trains a model for a few steps on 1 process, then under
other strategies and process counts, and compares every step's loss and the
final parameters and optimizer state (from the global-layout checkpoint).

  parallel_equals_serial.py --bin BUILD/bin --model M.mlir --work DIR
      [--devices 2,3,4] [--strategies data,model,owt,layerwise]
      [--pinned NAME:DEVICES:layer=n,c[,h,w];layer=...] ...
      [--reference-seed S] [--drop sync|transfer]
      [--backend cuda --tolerance 1e-3]

Prints one line per case, "PASS" or "FAIL", with the largest relative errors,
and exits with 3 when any case differs. Negative controls that must FAIL:
--reference-seed runs the reference with another seed; --drop runs the
cases with every gradient sync skipped or every transfer's gradient zeroed
(the runtime's HDRT_TEST_DROP). --backend compiles the
cases (not the 1-process CPU reference) for another runtime backend; GPU
cases run with TF32 off.
"""
import argparse
import json
import os
import re
import subprocess
import sys

from checkpoints import read_checkpoint, tensor_errors

TOLERANCE = 1e-4
# Optimizer state gets a looser bound: a gradient that is zero in exact
# arithmetic (a convolution's bias in front of batch norm) is rounding noise
# whose value depends on the summation order, and momentum accumulates it.
STATE_TOLERANCE = 1e-3


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise RuntimeError("%s failed (%d):\n%s%s" % (
            " ".join(cmd), r.returncode, r.stdout[-2000:], r.stderr[-2000:]))
    return r


def pin(mlir, pins):
    """Adds a `parallel` attribute to each named layer (names are inline
    locations, printed with --mlir-print-local-scope)."""
    out = []
    for line in mlir.splitlines():
        m = re.search(r'loc\("([^"]+)"\)$', line)
        if m and m.group(1) in pins and " = hd." in line:
            degrees = pins.pop(m.group(1))
            names = ["n", "c", "h", "w"][:len(degrees)]
            attr = "parallel = #hd.pconfig<%s>" % ", ".join(
                "%s = %d" % (n, d) for n, d in zip(names, degrees))
            # The op, its keyword (pool2d max, activation silu) and operands.
            head = re.match(r'(\s*%\S+ = hd\.\w+(?: [a-z]\w*)? %\w+(?:, %\w+)*)( \{)?',
                            line)
            if head.group(2):
                line = line[:head.end()] + attr + ", " + line[head.end():]
            else:
                line = line[:head.end()] + " {" + attr + "}" + line[head.end():]
        out.append(line)
    if pins:
        raise RuntimeError("no layer named %s" % ", ".join(pins))
    return "\n".join(out) + "\n"


class Case:
    def __init__(self, name, devices, options, pins=None, backend="cpu"):
        self.name, self.devices, self.options, self.pins = (
            name, devices, options, pins or {})
        self.backend = backend


def train(args, model_text, case, seed, drop=None):
    tag = "%s-%d-%s" % (case.name, case.devices, case.backend)
    src = os.path.join(args.work, tag + ".mlir")
    with open(src, "w") as f:
        f.write(pin(model_text, dict(case.pins)))
    low = os.path.join(args.work, tag + ".low.mlir")
    exe = os.path.join(args.work, tag + ".exe")
    run([os.path.join(args.bin, "hd-opt"), src,
         "--layerwise-parallelize=devices=%d machine=cpu %s" % (
             case.devices, case.options),
         "--hd-insert-transfers", "--hd-lower-to-runtime", "-o", low])
    run([os.path.join(args.bin, "hd-translate"), "--hd-to-executable", low,
         "--backend=" + case.backend, "-o", exe])
    ckpt = os.path.join(args.work, tag + ".ckpt")
    os.makedirs(ckpt, exist_ok=True)
    metrics = os.path.join(args.work, tag + ".json")
    env = dict(os.environ, HDRT_TEST_DROP=drop) if drop else None
    run(["mpirun", "-np", str(case.devices), exe, "--steps", str(args.steps),
         "--seed", str(seed), "--lr", "0.05", "--quiet", "--metrics", metrics,
         "--checkpoint", ckpt] +
        (["--no-tf32"] if case.backend == "cuda" else []), timeout=300,
        env=env)
    with open(metrics) as f:
        losses = json.load(f)["losses"]
    with open(low) as f:
        case.transfers = f.read().count("call @hdrt_transfer_forward")
    return losses, read_checkpoint(os.path.join(ckpt, "checkpoint.hd"))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--devices", default="2,3,4")
    p.add_argument("--strategies", default="data,model,owt,layerwise")
    p.add_argument("--pinned", action="append", default=[])
    p.add_argument("--reference-seed", type=int, default=1)
    p.add_argument("--drop", choices=["sync", "transfer"])
    p.add_argument("--backend", default="cpu")
    p.add_argument("--tolerance", type=float, default=TOLERANCE)
    args = p.parse_args()
    os.makedirs(args.work, exist_ok=True)
    model_text = run([os.path.join(args.bin, "hd-opt"), args.model,
                      "--mlir-print-debuginfo",
                      "--mlir-print-local-scope"]).stdout
    model = os.path.splitext(os.path.basename(args.model))[0]

    cases = []
    for d in [int(x) for x in args.devices.split(",") if x]:
        for s in [x for x in args.strategies.split(",") if x]:
            cases.append(Case(s, d, "strategy=" + s, backend=args.backend))
    for spec in args.pinned:
        name, devices, layers = spec.split(":", 2)
        pins = {}
        for item in layers.split(";"):
            layer, degrees = item.split("=")
            pins[layer.strip()] = [int(x) for x in degrees.split(",")]
        cases.append(Case(name, int(devices), "", pins, args.backend))

    ref_losses, ref_params = train(args, model_text, Case("serial", 1, ""),
                                   args.reference_seed)
    failed = errors = 0
    for case in cases:
        try:
            losses, params = train(args, model_text, case, 1, args.drop)
        except Exception as e:  # a crash fails the case, and is no result
            print("ERROR %s %s devices=%d: %s" % (model, case.name,
                                                  case.devices, e))
            errors += 1
            continue
        loss_err = max(abs(a - b) / abs(b) for a, b in zip(losses, ref_losses))
        param_err, state_err = tensor_errors(params, ref_params)
        ok = (len(losses) == len(ref_losses) == args.steps and
              loss_err <= args.tolerance and param_err <= args.tolerance and
              state_err <= max(STATE_TOLERANCE, args.tolerance))
        failed += not ok
        print("%s %s %s devices=%d transfers=%d loss_err=%.2e "
              "param_err=%.2e momentum_err=%.2e" % (
                  "PASS" if ok else "FAIL", model, case.name, case.devices,
                  case.transfers, loss_err, param_err, state_err))
    print("%d of %d cases match the 1-process run" % (len(cases) - failed,
                                                      len(cases)))
    # A case that could not run exits with 1, one that differs with 3: the
    # negative controls must tell the two apart (expect_failure.py).
    return 1 if errors else 3 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
