#!/usr/bin/python3
"""What hd's users see, captured from one build, to show that a
restructuring changed none of it.

  scripts/capture-outputs.py capture BUILD OUT [--quick] [--only=SECTION]...
  scripts/capture-outputs.py compare BEFORE AFTER

`capture` runs the tools of BUILD on this tree's models and writes one file
per output into OUT: import summaries (section `import`); search reports,
tables, DOT pictures and annotated, transfer and lowered IR of every
strategy on four targets (`search`); and trained programs' per-step
losses, evaluations, exported ONNX weights and checkpoints under mpirun
(`train`: demo_cnn on 1, 2 and 4 ranks, the integration models under three
strategies, LeNet on Fashion-MNIST with evaluation; `onnx`: the importer's
test models, one kind of layer each, from 1 to 4 ranks). Times are
stripped, so two captures of the same behaviour are byte-identical.
`compare` says which files differ. Capture with the old build before the
change and with the new one after it; a capture takes about 30 minutes on
2 cores (`--quick`: a few).
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

if len(sys.argv) >= 4 and sys.argv[1] == "compare":
    before, after = sys.argv[2], sys.argv[3]
    names = sorted(set(os.listdir(before)) | set(os.listdir(after)))
    differ = [n for n in names
              if not (os.path.exists(os.path.join(before, n)) and
                      os.path.exists(os.path.join(after, n))) or
              open(os.path.join(before, n), "rb").read() !=
              open(os.path.join(after, n), "rb").read()]
    for n in differ:
        print("differs:", n)
    print(f"{len(names) - len(differ)} of {len(names)} files identical")
    sys.exit(1 if differ else 0)
if len(sys.argv) < 4 or sys.argv[1] != "capture":
    sys.exit(__doc__)
src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
build, out = os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
quick = "--quick" in sys.argv
only = [a[len("--only="):] for a in sys.argv if a.startswith("--only=")]


def section(name):
    return not only or name in only
bin_ = os.path.join(build, "bin")
os.makedirs(out, exist_ok=True)
work = os.path.join(out, "work")
os.makedirs(work, exist_ok=True)
env = dict(os.environ, PATH=bin_ + ":" + os.environ["PATH"],
           OMP_NUM_THREADS="1")
MPI = ["mpirun", "--oversubscribe", "--allow-run-as-root", "-x",
       "OMP_NUM_THREADS"]

TIMING = [
    (re.compile(r"search [0-9.]+ ms"), "search X ms"),
    (re.compile(r"[0-9.]+ images/s"), "X images/s"),
    (re.compile(r"in [0-9.]+ (ms|s)\b"), "in X"),
]
TIMING_KEYS = {"search_ms", "search_seconds", "mean_step_ms", "step_ms"}


def clean_text(t):
    for pat, rep in TIMING:
        t = pat.sub(rep, t)
    return t.replace(work, "WORK").replace(build, "BUILD").replace(src, "SRC")


def strip_json(v):
    if isinstance(v, dict):
        return {k: strip_json(x) for k, x in v.items()
                if k not in TIMING_KEYS and not k.endswith("_time")
                and "search" not in k}
    if isinstance(v, list):
        return [strip_json(x) for x in v]
    return v


def save(name, text):
    with open(os.path.join(out, name), "w") as f:
        f.write(text)


def run(name, cmd, cwd=work):
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    save(name + ".txt", "rc %d\n--- stdout\n%s--- stderr\n%s" %
         (p.returncode, clean_text(p.stdout), clean_text(p.stderr)))
    return p.returncode


def save_file(name, path, kind="text"):
    if not os.path.exists(path):
        save(name, "MISSING\n")
        return
    if kind == "json":
        save(name, json.dumps(strip_json(json.load(open(path))), indent=1,
                              sort_keys=True) + "\n")
    elif kind == "hash":
        save(name, hashlib.sha256(open(path, "rb").read()).hexdigest() + "\n")
    else:
        save(name, clean_text(open(path).read()))


def w(*p):
    return os.path.join(work, *p)


# 1. Import and layer summaries.
models = ["alexnet", "resnet50", "vgg16", "inception_v3", "demo_cnn"]
for m in (models if section("import") else ["demo_cnn"]):
    for batch in ([32] if quick else [32, 512]):
        mlir = w(f"{m}_{batch}.mlir")
        run(f"import-{m}-{batch}", ["hd-translate", "--import-onnx",
            os.path.join(src, "models", m + ".onnx"), f"--batch-size={batch}",
            "-o", mlir])
        save_file(f"import-{m}-{batch}.mlir", mlir)
        run(f"summary-{m}-{batch}", ["hd-opt", mlir, "--hd-layer-summary",
                                     "-o", "/dev/null"])

# 2. Searches: strategies x targets, report, table, DOT, annotated IR;
# transfers and lowering of the layer-wise ones.
targets = [("p100-cluster", 16), ("p100-cluster", 6), ("h200-node", 8),
           ("cpu", 4)]
strategies = ["layerwise", "data", "model", "owt"]
for m in ([] if not section("search") else ["alexnet", "demo_cnn"] if quick
          else ["alexnet", "resnet50", "vgg16", "inception_v3", "demo_cnn"]):
    mlir = w(f"{m}_512.mlir") if not quick else w(f"{m}_32.mlir")
    for mach, dev in targets:
        for s in strategies:
            tag = f"search-{m}-{mach}-{dev}-{s}"
            par = w(tag + ".mlir")
            run(tag, ["hd-opt", mlir, "-o", par, "--layerwise-parallelize="
                      f"devices={dev} machine={mach} strategy={s} "
                      f"report={w(tag + '.json')} print=true "
                      f"dot={w(tag + '.dot')}"])
            save_file(tag + ".json", w(tag + ".json"), "json")
            save_file(tag + ".dot", w(tag + ".dot"))
            save_file(tag + ".mlir", par)
            if s == "layerwise" or (s == "data" and mach == "cpu"):
                tr = w(tag + ".tr.mlir")
                run(tag + "-transfers", ["hd-opt", par, "--hd-insert-transfers",
                                         "--hd-verify-transfers", "-o", tr])
                save_file(tag + ".tr.mlir", tr)
                low = w(tag + ".low.mlir")
                run(tag + "-lower", ["hd-opt", tr, "--hd-lower-to-runtime",
                                     "-o", low])
                save_file(tag + ".low.mlir", low)

# Exhaustive search on small graphs.
for f in (["test/Integration/Inputs/mlp.mlir"] if section("search")
          else []):
    tag = "exhaustive-" + os.path.basename(f)
    run(tag, ["hd-opt", os.path.join(src, f), "-o", w(tag + ".mlir"),
              "--layerwise-parallelize=devices=4 machine=p100-cluster "
              f"strategy=exhaustive report={w(tag + '.json')} print=true"])
    save_file(tag + ".json", w(tag + ".json"), "json")
    save_file(tag + ".mlir", w(tag + ".mlir"))

# 3. Trained programs.
def compile_(tag, mlir, devices, strategy="layerwise", machine="cpu"):
    low = w(tag + ".low.mlir")
    rc = run(tag + "-compile", [
        "hd-opt", mlir, "--layerwise-parallelize="
        f"devices={devices} machine={machine} strategy={strategy}",
        "--hd-insert-transfers", "--hd-lower-to-runtime", "-o", low])
    run(tag + "-link", ["hd-translate", "--hd-to-executable", low, "-o",
                        w(tag + ".exe")])
    return w(tag + ".exe")


def train(tag, exe, ranks, args, export=False, ckpt=False):
    metrics = w(tag + ".metrics.json")
    extra = ["--metrics", metrics]
    if export:
        extra += ["--export-onnx", w(tag + ".trained.onnx")]
    if ckpt:
        shutil.rmtree(w(tag + ".ckpt"), ignore_errors=True)
        extra += ["--checkpoint", w(tag + ".ckpt")]
    rc = run(tag + "-run", MPI + ["-np", str(ranks), exe] + args + extra)
    if rc and "--init" in args: # a model exported without weights
        i = args.index("--init")
        args = args[:i] + args[i + 2:]
        run(tag + "-run", MPI + ["-np", str(ranks), exe] + args + extra)
    m = json.load(open(metrics)) if os.path.exists(metrics) else {}
    keep = {k: m.get(k) for k in ("losses", "eval", "first_step", "batch", "devices")}
    save(tag + ".losses.json", json.dumps(keep, indent=1, sort_keys=True) +
         "\n")
    if export:
        save_file(tag + ".trained.onnx.sha", w(tag + ".trained.onnx"), "hash")
    if ckpt:
        save_file(tag + ".ckpt.sha", w(tag + ".ckpt", "checkpoint.hd"),
                  "hash")


demo = w("demo_cnn_32.mlir")
for ranks in ([1, 2, 4] if section("train") else []):
    exe = compile_(f"demo-{ranks}", demo, ranks)
    train(f"demo-{ranks}", exe, ranks, ["--steps", "5", "--lr", "0.1"],
          export=True, ckpt=True)
exe = compile_("demo-2-data", demo, 2, "data") if section("train") else 0
section("train") and train("demo-2-data-noblock", exe, 2, ["--steps", "3", "--blocked-layouts",
                                       "off", "--early-transfers", "off"])
section("train") and train("demo-2-data-resume", exe, 2, ["--steps", "3"], ckpt=True)

for model in (["alexnet-small", "resnet-block", "mlp"] if section("train")
              else []):
    mlir = os.path.join(src, "test/Integration/Inputs", model + ".mlir")
    for s in ["layerwise", "data", "model"]:
        exe = compile_(f"{model}-{s}", mlir, 2, s)
        train(f"{model}-{s}", exe, 2, ["--steps", "4"], ckpt=True)

onnx_in = os.path.join(src, "test/Import/ONNX/Inputs")
for name in ([] if not section("onnx") else
             ["small_cnn", "modern_cnn", "convnext_blocks", "shuffle_blocks",
              "binary_broadcast", "channel_operands", "shared_weights"]):
    mlir = w(name + ".mlir")
    run(name + "-import", ["hd-translate", "--import-onnx",
                           os.path.join(onnx_in, name + ".onnx"),
                           "--batch-size=6", "-o", mlir])
    for ranks, s in [(1, "data"), (2, "layerwise"), (3, "model"),
                     (4, "owt")]:
        tag = f"{name}-{ranks}-{s}"
        exe = compile_(tag, mlir, ranks, s)
        train(tag, exe, ranks, ["--steps", "3", "--init",
                                os.path.join(onnx_in, name + ".onnx")],
              export=True, ckpt=True)

# Evaluation (inference: running statistics) on Fashion-MNIST with LeNet.
fashion = "/usr/share/datasets/fashion-mnist"
if os.path.isdir(fashion) and section("train"):
    subprocess.run(["/usr/bin/python3", os.path.join(src, "models/lenet.py"),
                    "export", w("lenet.onnx")], env=env, capture_output=True)
    run("lenet-import", ["hd-translate", "--import-onnx", w("lenet.onnx"),
                         "--batch-size=64", "-o", w("lenet.mlir")])
    exe = compile_("lenet", w("lenet.mlir"), 2)
    train("lenet", exe, 2, [
        "--init", w("lenet.onnx"), "--data",
        f"{fashion}/train-images-idx3-ubyte.gz", "--eval-data",
        f"{fashion}/t10k-images-idx3-ubyte.gz", "--steps", "20",
        "--eval-every", "10", "--shuffle", "--mean", "0.286", "--std",
        "0.353", "--lr", "0.05"], export=True)

shutil.rmtree(work)
print("captured", len(os.listdir(out)), "files in", out)
