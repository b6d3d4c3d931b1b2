#!/usr/bin/python3
"""Runs hd's libFuzzer targets, each for a set time, and reports what they
found.

  fuzz.py --fuzz-build DIR --tools DIR [--seconds S] [--seconds-for T=S]...
          [--jobs J] [--results MD]

Seeds come from the test inputs (and, for the JSON readers, files hd's own
tools write; test/Fuzz/Seeds/<target>/ holds inputs made for one target).
Corpora and crash artifacts stay in DIR/fuzz/<target>/. A new crash, leak,
timeout or out-of-memory input is copied into test/Fuzz/Regressions/<target>/,
which `make check` replays: fix the bug, keep the input. The exit status is
non-zero when anything was found.
"""
import argparse
import glob
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "test", "sanitizers"))
from lit_sanitizers import MLIR_ASAN_OPTIONS  # noqa: E402
TARGETS = ["hd-pipeline-fuzzer", "hd-onnx-fuzzer", "hd-json-fuzzer",
           "hd-data-fuzzer", "hd-onnx-weights-fuzzer"]
# What libFuzzer saves for a bug. Slow units (over 10 s, not a hang) are
# reported in the table, not saved.
FINDINGS = ("crash-", "leak-", "timeout-", "oom-")


def files(*patterns, max_bytes=200_000):
    out = []
    for pattern in patterns:
        out += [f for f in glob.glob(os.path.join(ROOT, pattern), recursive=True)
                if os.path.getsize(f) <= max_bytes]
    return sorted(set(out))


def generated_json(tools, tmp):
    """A strategy report and a profile database written by hd's tools."""
    out = []
    model = os.path.join(ROOT, "test/Integration/Inputs/mlp.mlir")
    report = os.path.join(tmp, "report.json")
    if subprocess.run([os.path.join(tools, "hd-opt"), model,
                       "--layerwise-parallelize=devices=2 report=" + report,
                       "-o", os.devnull]).returncode == 0:
        out.append(report)
    db = os.path.join(tmp, "profile.json")
    if subprocess.run([os.path.join(tools, "hd-profile"), model,
                       "--devices=2", "--repeats=1", "--min-time-ms=0",
                       "-o", db], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode == 0:
        out.append(db)
    return out


def seeds(target, tools, tmp):
    if target == "hd-pipeline-fuzzer":
        return files("test/**/*.mlir", "models/alexnet.mlir", max_bytes=20_000)
    if target in ("hd-onnx-fuzzer", "hd-onnx-weights-fuzzer"):
        return files("test/**/*.onnx", "models/*.onnx")
    if target == "hd-data-fuzzer":
        # Small IDX, .npy and raw inputs in the fuzzer's layout, written by
        # test/Fuzz/Seeds/make-hd-data-fuzzer-seeds.py.
        return files("test/Fuzz/Seeds/hd-data-fuzzer/*")
    return files("test/**/*.json", "lib/CostModel/machines/*.json",
                 "bench/machines/*.json") + \
        generated_json(tools, tmp)


def start(target, args, tmp):
    work = os.path.join(args.fuzz_build, "fuzz", target)
    corpus, seed_dir = os.path.join(work, "corpus"), os.path.join(work, "seeds")
    artifacts = os.path.join(work, "artifacts") + "/"
    for d in (corpus, seed_dir, artifacts):
        os.makedirs(d, exist_ok=True)
    for i, f in enumerate(seeds(target, args.tools, tmp)):
        shutil.copy(f, os.path.join(seed_dir, "%03d-%s" % (i, os.path.basename(f))))
    before = set(os.listdir(artifacts))
    log = open(os.path.join(work, "fuzz.log"), "w")
    # 0 seconds: run the seeds and corpus once, without mutating.
    seconds = args.seconds_for.get(target, args.seconds)
    budget = "-max_total_time=%d" % seconds if seconds > 0 else "-runs=0"
    cmd = [os.path.join(args.fuzz_build, "bin", target), budget, "-timeout=20",
           "-rss_limit_mb=4096", "-max_len=%d" % args.max_len,
           "-print_final_stats=1", "-artifact_prefix=" + artifacts,
           corpus, seed_dir]
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                            env=dict(os.environ,
                                     ASAN_OPTIONS="detect_leaks=1:" + MLIR_ASAN_OPTIONS,
                                     UBSAN_OPTIONS="print_stacktrace=1"))
    return dict(target=target, proc=proc, log=log, work=work,
                artifacts=artifacts, before=before, cmd=cmd, start=time.time(),
                seeds=len(os.listdir(seed_dir)))


def finish(run):
    rc = run["proc"].wait()
    run["log"].close()
    run["seconds"] = time.time() - run["start"]
    text = open(os.path.join(run["work"], "fuzz.log"), errors="replace").read()
    stat = lambda name: int((re.findall(r"stat::%s:\s*(\d+)" % name, text) or [0])[-1])
    run["execs"] = stat("number_of_executed_units")
    slowest = re.findall(r"Slowest unit: (\d+) s", text)
    run["slowest"] = max(map(int, slowest)) if slowest else 0
    run["corpus"] = len(os.listdir(os.path.join(run["work"], "corpus")))
    new = sorted(f for f in set(os.listdir(run["artifacts"])) - run["before"]
                 if f.startswith(FINDINGS))
    run["found"] = new
    regressions = os.path.join(ROOT, "test/Fuzz/Regressions", run["target"])
    for f in new:
        os.makedirs(regressions, exist_ok=True)
        shutil.copy(os.path.join(run["artifacts"], f), regressions)
    run["rc"] = rc
    with open(os.path.join(run["work"], "history.jsonl"), "a") as h:
        h.write(json.dumps({k: run[k] for k in (
            "target", "seconds", "execs", "slowest", "corpus", "found", "rc")},
            sort_keys=True) + "\n")
    return run


def history(fuzz_build):
    """Every run of every target in this build, summed per target: the
    corpus carries over from run to run, so they add up to one campaign."""
    rows = []
    for target in TARGETS:
        path = os.path.join(fuzz_build, "fuzz", target, "history.jsonl")
        if not os.path.exists(path):
            continue
        runs = [json.loads(line) for line in open(path)]
        rows.append(dict(target=target, runs=len(runs),
                         seconds=sum(r["seconds"] for r in runs),
                         execs=sum(r["execs"] for r in runs),
                         slowest=max(r["slowest"] for r in runs),
                         corpus=runs[-1]["corpus"],
                         found=sum((r["found"] for r in runs), [])))
    return rows


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--fuzz-build", required=True)
    p.add_argument("--tools", required=True, help="bin/ of a normal build")
    p.add_argument("--seconds", type=int, default=600)
    p.add_argument("--seconds-for", action="append", default=[],
                   metavar="TARGET=S", help="another time for one target")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--max-len", type=int, default=65536)
    p.add_argument("--targets", nargs="*", default=TARGETS)
    p.add_argument("--results", help="write the table into this results.md")
    args = p.parse_args()
    args.seconds_for = {t: int(s) for t, s in
                        (item.split("=", 1) for item in args.seconds_for)}
    runs, pending = [], list(args.targets)
    with tempfile.TemporaryDirectory() as tmp:
        active = []
        while pending or active:
            while pending and len(active) < args.jobs:
                t = pending.pop(0)
                print("fuzz: %s for %d s" % (t, args.seconds_for.get(t, args.seconds)),
                      flush=True)
                active.append(start(t, args, tmp))
            time.sleep(1)
            for run in [r for r in active if r["proc"].poll() is not None]:
                active.remove(run)
                runs.append(finish(run))
                print("fuzz: %s done: %d executions, %d found" %
                      (run["target"], run["execs"], len(run["found"])), flush=True)
    lines = ["| target | runs | seconds | executions | executions/s | corpus "
             "| slowest input | findings |", "|---|---|---|---|---|---|---|---|"]
    for r in history(args.fuzz_build):
        lines.append("| %s | %d | %.0f | %d | %.0f | %d | %s | %s |" % (
            r["target"], r["runs"], r["seconds"], r["execs"],
            r["execs"] / max(r["seconds"], 1), r["corpus"],
            "%d s" % r["slowest"] if r["slowest"] else "under 10 s",
            ", ".join(r["found"]) or "none"))
    table = "\n".join(lines)
    print(table)
    found = sum(len(r["found"]) for r in runs)
    if found:
        print("fuzz: %d new inputs copied to test/Fuzz/Regressions/: fix them; "
              "make check replays them" % found)
    if args.results:
        cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                    if l.startswith("model name")), platform.processor())
        body = ["## Fuzzing", "",
                "`make fuzz` (scripts/fuzz.py) on %s (%d cores), clang with "
                "libFuzzer, AddressSanitizer and UndefinedBehaviorSanitizer, %s. "
                "Totals over every run of this build's corpora (`runs`); runs "
                "may share the cores with each other, so executions/s is a "
                "floor. Findings are the inputs saved for a crash, leak, "
                "timeout or out-of-memory." % (
                    cpu, os.cpu_count(), time.strftime("%Y-%m-%d")), "", table]
        subprocess.run([sys.executable, os.path.join(ROOT, "bench/hdbench.py"),
                        "section", "fuzz", "--results", args.results],
                       input="\n".join(body), text=True, check=True)
    bad = [r for r in runs if r["rc"] != 0 and not r["found"]]
    for r in bad:
        print("fuzz: %s exited %d without a finding; see %s/fuzz.log" %
              (r["target"], r["rc"], r["work"]))
    return 1 if found or bad else 0


if __name__ == "__main__":
    sys.exit(main())
