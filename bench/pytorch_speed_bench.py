#!/usr/bin/python3
"""hd's CPU executable against PyTorch eager, side by side in one run: the
same model (torchvision's, as models/ exports it), batch, optimizer (SGD with
momentum and weight decay) and thread count (every core: hd's one process
takes them all, and PyTorch is told to), training on synthetic images. Then,
per layer kind, where each spends its step: hd's from its --trace of the last
step, PyTorch's from its profiler (which slows it somewhat; the totals above
are unprofiled). Writes the section "pytorch-speed" of docs/results.md.

usage: bench/pytorch_speed_bench.py [build-dir] [--steps N]
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

from hdbench import (ROOT, compile_program, host, import_onnx, read_json,
                     run_program, write_section, zoo_model)

CASES = [("alexnet", 16), ("resnet50", 8), ("inception_v3", 4), ("vgg16", 4)]
PYTHON = "/usr/bin/python3"  # Debian's, with python3-torch

# One PyTorch training run: prints the step times (ms) as JSON, then the
# profiler's self time per op (ms) of one more step.
TORCH_SCRIPT = r"""
import json, os, sys, time, torch, torchvision
name, batch, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
torch.set_num_threads(os.cpu_count())
torch.manual_seed(0)
kw = {"aux_logits": False, "init_weights": False} if name == "inception_v3" else {}
model = getattr(torchvision.models, name)(**kw).train()
size = 299 if name == "inception_v3" else 224
x, y = torch.randn(batch, 3, size, size), torch.randint(0, 1000, (batch,))
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9,
                      weight_decay=5e-4)
loss_fn = torch.nn.CrossEntropyLoss()
def step():
    opt.zero_grad()
    loss_fn(model(x), y).backward()
    opt.step()
times = []
for _ in range(steps):
    start = time.perf_counter()
    step()
    times.append((time.perf_counter() - start) * 1e3)
with torch.autograd.profiler.profile() as prof:
    step()
ops = {e.key: e.self_cpu_time_total / 1e3 for e in prof.key_averages()}
print(json.dumps({"step_ms": times, "ops": ops}))
"""

# PyTorch's ops by the layer kind they compute, as hd's trace names kinds.
TORCH_KINDS = [
    ("Conv bwd", r"convolution_backward"),
    ("Conv fwd", r"mkldnn_convolution|thnn_conv|slow_conv|_convolution$|aten::convolution$"),
    ("BatchNormalization bwd", r"batch_norm_backward"),
    ("BatchNormalization fwd", r"batch_norm"),
    ("Relu bwd", r"threshold_backward"),
    ("Relu fwd", r"relu|clamp_min"),
    ("MaxPool/AveragePool bwd", r"pool.*backward"),
    ("MaxPool/AveragePool fwd", r"pool"),
    ("Gemm", r"addmm|aten::mm$|aten::t$"),
    ("Add and optimizer", r"aten::add|aten::mul|aten::fill_|zero_|SGD"),
]


def torch_kind(op):
    for kind, pattern in TORCH_KINDS:
        if re.search(pattern, op):
            return kind
    return "other"


def hd_kind(span):
    """A trace span's kind and pass: '/layer1/.../conv1/Conv fwd' -> 'Conv
    fwd'; updates and transfers by category."""
    name, cat = span["name"], span.get("cat")
    if cat != "compute":
        return cat
    layer, _, phase = name.rpartition(" ")
    kind = re.sub(r"_\d+$", "", layer.rsplit("/", 1)[-1])
    if phase == "update" or kind == "Add":
        return "Add and optimizer"
    if kind in ("MaxPool", "AveragePool", "GlobalAveragePool"):
        kind = "MaxPool/AveragePool"
    if kind == "Gemm":  # PyTorch's profile does not tell its passes apart
        return "Gemm"
    return kind + " " + phase


def hd_run(build, tmp, model, batch, steps):
    """hd's step on one process with every core: run alone, not under
    mpirun, which would bind it to one core."""
    src = import_onnx(build, zoo_model(model),
                      os.path.join(tmp, model + ".mlir"), batch)
    exe = compile_program(build, src, os.path.join(tmp, model), 1, "cpu",
                          "data")
    trace = os.path.join(tmp, model + ".trace.json")
    m = run_program(exe, ["--steps", str(steps), "--quiet", "--trace", trace],
                    os.path.join(tmp, model + ".metrics.json"), timeout=3600)
    events = read_json(trace)
    events = events["traceEvents"] if isinstance(events, dict) else events
    kinds = collections.Counter()
    for e in events:
        if e.get("ph") == "X" and e.get("cat") != "step":
            kinds[hd_kind(e)] += e["dur"] / 1e3
    return m["mean_step_ms"], kinds


def torch_run(model, batch, steps):
    r = subprocess.run([PYTHON, "-c", TORCH_SCRIPT, model, str(batch),
                        str(steps)], capture_output=True, text=True,
                       timeout=3600)
    if r.returncode:
        raise RuntimeError("PyTorch failed:\n" + r.stderr[-3000:])
    out = json.loads(r.stdout.strip().splitlines()[-1])
    # As hd's metrics: the mean of the steps after the first.
    timed = out["step_ms"][1:]
    kinds = collections.Counter()
    for op, ms in out["ops"].items():
        kinds[torch_kind(op)] += ms
    return sum(timed) / len(timed), kinds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default=os.path.join(ROOT, "build"))
    ap.add_argument("--steps", type=int, default=6)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="hd-torch-bench-")
    rows, breakdowns = [], []
    for model, batch in CASES:
        hd_ms, hd_kinds = hd_run(args.build, tmp, model, batch, args.steps)
        torch_ms, torch_kinds = torch_run(model, batch, args.steps)
        rows.append((model, batch, hd_ms, torch_ms))
        breakdowns.append((model, batch, hd_kinds, torch_kinds))
        print("%s b%d: hd %.0f ms, PyTorch %.0f ms, %.2fx" %
              (model, batch, hd_ms, torch_ms, torch_ms / hd_ms), flush=True)

    out = ["## hd against PyTorch, one process", "",
           "Command: `bench/pytorch_speed_bench.py --steps %d` (writes this "
           "section). Machine: %s. Both train with SGD (momentum 0.9, weight "
           "decay 5e-4) on synthetic images with every core: hd's single "
           "process (oneDNN and its own loops on the OpenMP threads), PyTorch "
           "%s eager with `torch.set_num_threads(%d)`. Mean of the steps after "
           "the first." % (args.steps, host(), torch_version(), os.cpu_count()),
           "",
           "| model | batch | hd ms/step | PyTorch ms/step | hd images/s "
           "| PyTorch images/s | hd / PyTorch |",
           "|---|---|---|---|---|---|---|"]
    for model, batch, hd_ms, torch_ms in rows:
        out.append("| %s | %d | %.0f | %.0f | %.1f | %.1f | %.2fx |" % (
            model, batch, hd_ms, torch_ms, batch * 1e3 / hd_ms,
            batch * 1e3 / torch_ms, torch_ms / hd_ms))
    out += ["", "Where each spends a step, ms per layer kind (hd: its trace "
            "of the last step; PyTorch: its profiler's self time of one more "
            "step):", ""]
    for model, batch, hd_kinds, torch_kinds in breakdowns:
        out += ["%s, batch %d:" % (model, batch), "",
                "| kind | hd ms | PyTorch ms |", "|---|---|---|"]
        for kind in sorted(set(hd_kinds) | set(torch_kinds),
                           key=lambda k: -max(hd_kinds[k], torch_kinds[k])):
            if max(hd_kinds[kind], torch_kinds[kind]) >= 1:
                out.append("| %s | %.0f | %.0f |" % (kind, hd_kinds[kind],
                                                      torch_kinds[kind]))
        out.append("")
    return write_section("pytorch-speed", out)


def torch_version():
    r = subprocess.run([PYTHON, "-c", "import torch; print(torch.__version__)"],
                       capture_output=True, text=True)
    return r.stdout.strip() or "?"


if __name__ == "__main__":
    sys.exit(main())
