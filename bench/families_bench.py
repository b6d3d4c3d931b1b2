#!/usr/bin/python3
"""Coverage of torchvision's classification families: each one (the
architecture test/Training/Families trains), exported by Debian's
python3-torchvision at 224 x 224 with opset 13 and 17, is imported by hd,
searched for `p100-cluster` (16 devices) and `h200-node` (8 devices) at 32
images per device, and trained on 2 CPU processes against PyTorch
(test/Training/Inputs/train_family.sh). Writes the section "families" of
docs/results.md: imported / searched / trained / matched, the layer-wise
speedup over data parallelism predicted by the analytic cost model, and
the search time.

usage: bench/families_bench.py [build-dir] [--search-only] [--arch NAME]...
  --search-only: export and search, without training; prints the table and
  leaves docs/results.md alone. --arch: only these families.
"""
import argparse
import os
import subprocess
import sys
import tempfile

from hdbench import (ROOT, ToolError, host, import_onnx, least_memory,
                     mpi_env, search as search_report, write_section)

ARGS = argparse.ArgumentParser()
ARGS.add_argument("build", nargs="?", default=os.path.join(ROOT, "build"))
ARGS.add_argument("--search-only", action="store_true")
ARGS.add_argument("--arch", action="append")
ARGS = ARGS.parse_args()
BUILD = ARGS.build
# train_family.sh finds the tools on PATH, from the directory it works in.
BIN = os.path.join(os.path.abspath(BUILD), "bin")
INPUTS = os.path.join(ROOT, "test", "Training", "Inputs")
sys.path.insert(0, INPUTS)
import torchvision_reference as ref  # noqa: E402

ARCHS = list(ref.FAMILIES)
TARGETS = [("p100-cluster", 16), ("h200-node", 8)]
PER_DEVICE = 32
# A search that found no strategy within the devices' memory: the model
# imported, and trains, even so.
DOES_NOT_FIT = "does not fit"


def export(arch, opset, path):
    r = subprocess.run(["/usr/bin/python3",
                        os.path.join(INPUTS, "torchvision_reference.py"),
                        "export", path, arch, "--opset", str(opset)],
                       capture_output=True, text=True)
    return r.returncode == 0


def first_error(stderr):
    lines = [l.strip() for l in stderr.splitlines() if l.strip()]
    line = lines[1] if len(lines) > 1 else (lines[0] if lines else "")
    least = least_memory(line)
    return f"{DOES_NOT_FIT} (least {least})" if least else line


def search(onnx, tmp, machine, devices, strategy):
    try:
        mlir = os.path.join(tmp, f"m{devices}.mlir")
        if not os.path.exists(mlir):
            import_onnx(BUILD, onnx, mlir, PER_DEVICE * devices)
        return search_report(BUILD, mlir, os.path.join(tmp, "r.json"),
                             devices, machine, strategy), ""
    except ToolError as e:
        return None, first_error(e.stderr)


def train(arch, opset, tmp):
    r = subprocess.run([os.path.join(INPUTS, "train_family.sh"),
                        os.path.join(tmp, f"train-{arch}-{opset}"), arch,
                        str(opset)],
                       capture_output=True, text=True,
                       env=mpi_env(PATH=BIN + ":" + os.environ["PATH"],
                                   OMP_NUM_THREADS="1"))
    lines = r.stdout.strip().splitlines()
    return r.returncode == 0, lines[-1] if lines else first_error(r.stderr)


def main():
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for arch in ARGS.arch or ARCHS:
            row = {"arch": arch}
            for opset in (13, 17):
                work = os.path.join(tmp, f"{arch}-{opset}")
                os.makedirs(work)
                onnx = os.path.join(work, "model.onnx")
                if not export(arch, opset, onnx):
                    row[opset] = "export failed"
                    continue
                # Per target, the speedup and search time, or why there is
                # none (a model that does not fit one machine still trains).
                speed = {}
                for machine, devices in TARGETS:
                    data, why = search(onnx, work, machine, devices, "data")
                    lw, why2 = search(onnx, work, machine, devices, "layerwise")
                    speed[machine] = (
                        (data["predicted_ms"] / lw["predicted_ms"],
                         lw["search_ms"]) if data and lw else why2 or why)
                imported = not any(isinstance(v, str) and
                                   not v.startswith(DOES_NOT_FIT)
                                   for v in speed.values())
                row[opset] = speed if imported else next(
                    v for v in speed.values() if isinstance(v, str))
                if imported and not ARGS.search_only:
                    row[f"trained{opset}"] = train(arch, opset, tmp)
            rows.append(row)
            print(arch, row, flush=True)

    out = ["## torchvision families: coverage and layer-wise speedup", "",
           f"Command: `bench/families_bench.py {os.path.relpath(BUILD, ROOT)}`. "
           f"Machine: {host()}.", "",
           "Each family's architecture, built by Debian's python3-torchvision "
           "(weights=None, dropout and stochastic depth off) and exported in "
           "training mode at 224 x 224. *Imported / searched*: opset 13 and 17 "
           "exports through `hd-translate --import-onnx` and "
           "`--layerwise-parallelize`. *Speedup*: the layer-wise strategy's "
           "predicted step against data parallelism's (analytic cost model, "
           "32 images per device), on `p100-cluster` at 16 devices and "
           "`h200-node` at 8. *Matched*: `test/Training/Inputs/train_family.sh`, "
           "2 CPU processes against PyTorch on the same weights and batch "
           "(step 1 within 1e-4, step 2 within 1e-3; the relative differences "
           "are shown), from each opset's export.", "",
           "| family (architecture) | imported, searched: opset 13 | opset 17 "
           "| p100 x16 speedup | h200 x8 speedup | search ms (p100 x16) | "
           "trained, matched: opset 13 | opset 17 |",
           "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        def state(v):
            return "yes" if isinstance(v, dict) else "no: " + v.replace("|", "/")
        s = row[13] if isinstance(row[13], dict) else {}
        def matched(trained):
            if not trained:
                return "-"
            return (("yes: " if trained[0] else "no: ")
                    + trained[1].replace("|", "/"))
        def speedup(machine):
            v = s.get(machine, "-")
            return f"{v[0]:.2f}x" if isinstance(v, tuple) else v
        p100 = s.get("p100-cluster")
        search_ms = f"{p100[1]:.0f}" if isinstance(p100, tuple) else "-"
        out.append(
            f"| {row['arch']} | {state(row[13])} | {state(row[17])} | "
            f"{speedup('p100-cluster')} | {speedup('h200-node')} | {search_ms} | "
            + matched(row.get("trained13")) + " | "
            + matched(row.get("trained17")) + " |")
    print("\n".join(out))
    if not ARGS.search_only:
        sys.exit(write_section("families", out))


if __name__ == "__main__":
    main()
