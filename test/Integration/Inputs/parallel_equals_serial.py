#!/usr/bin/env python3
"""Parallel == serial: trains a model for a few steps on 1 process, then under
other strategies and process counts, and compares every step's loss and the
final parameters and optimizer state (from the global-layout checkpoint).

  parallel_equals_serial.py --bin BUILD/bin --model M.mlir --work DIR
      [--devices 2,3,4] [--strategies data,model,owt,layerwise]
      [--pinned NAME:DEVICES:layer=n,c[,h,w];layer=...] ...
      [--reference-seed S] [--backend cuda --tolerance 1e-3]

Prints one line per case, "PASS" or "FAIL", with the largest relative errors,
and exits non-zero when any case fails. --reference-seed runs the reference
with another seed: a negative control that must FAIL. --backend compiles the
cases (not the 1-process CPU reference) for another runtime backend; GPU
cases run with TF32 off.
"""
import argparse
import json
import os
import re
import struct
import subprocess
import sys

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


def read_checkpoint(path):
    """Tensors of an HDCKPT1 file: {name: [floats]}."""
    with open(path, "rb") as f:
        data = f.read()
    header, _, payload = data.partition(b"data\n")
    lines = header.decode().splitlines()
    assert lines[0] == "HDCKPT1", lines[0]
    count = int(next(l for l in lines if l.startswith("tensors ")).split()[1])
    specs = lines[-count:]
    tensors, offset = {}, 0
    for spec in specs:
        fields = spec.split()
        size = 1
        for d in fields[2:]:
            size *= int(d)
        tensors[fields[0]] = struct.unpack_from("<%df" % size, payload, offset)
        offset += 4 * size
    return tensors


# Below this, a tensor is rounding noise around an exact zero, and its error
# is measured against this scale rather than its own: the shift of a batch
# norm whose output feeds another batch norm through a convolution gets a
# gradient that is zero in exact arithmetic (the second norm removes any
# shift), and so does the running mean of that second norm (ShuffleNet's
# branches): values near 1e-9 whose rounding differs with the split.
NOISE_FLOOR = 1e-4


def relative(a, b):
    scale = max(max(abs(x) for x in b), NOISE_FLOOR)
    return max(abs(x - y) for x, y in zip(a, b)) / scale


class Case:
    def __init__(self, name, devices, options, pins=None, backend="cpu"):
        self.name, self.devices, self.options, self.pins = (
            name, devices, options, pins or {})
        self.backend = backend


def train(args, model_text, case, seed):
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
    run(["mpirun", "-np", str(case.devices), exe, "--steps", str(args.steps),
         "--seed", str(seed), "--lr", "0.05", "--quiet", "--metrics", metrics,
         "--checkpoint", ckpt] +
        (["--no-tf32"] if case.backend == "cuda" else []), timeout=300)
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
    failed = 0
    for case in cases:
        try:
            losses, params = train(args, model_text, case, 1)
        except Exception as e:  # a crash is a failure of this case
            print("FAIL %s %s devices=%d: %s" % (model, case.name,
                                                 case.devices, e))
            failed += 1
            continue
        loss_err = max(abs(a - b) / abs(b) for a, b in zip(losses, ref_losses))
        if set(params) != set(ref_params):
            print("FAIL %s %s devices=%d: other tensors" % (model, case.name,
                                                           case.devices))
            failed += 1
            continue
        param_err = max(relative(params[k], ref_params[k])
                        for k in ref_params if not k.endswith(".momentum"))
        state_err = max(relative(params[k], ref_params[k])
                        for k in ref_params if k.endswith(".momentum"))
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
    # 3, not 1: an exception (a tool that failed) exits with 1, and the
    # negative controls must tell the two apart (expect_failure.py).
    return 3 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
