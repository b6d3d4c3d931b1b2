#!/usr/bin/python3
"""How the layer-wise search grows with the device count: every zoo model at
a global batch of 8192 on 16, 64, 256, 1024 and 2048 devices of 8-GPU H200
nodes (`h200-node`'s figures, more nodes), the wall time and peak memory of
`hd-opt --layerwise-parallelize`, whether the result is exact, and the
predicted speedup over data parallelism. A run longer than the time limit is
stopped and recorded as such. Then DenseNet-121, the graph that
is not series-parallel, on 16 devices. Writes the section "search-scale" of
docs/results.md.

usage: bench/search_scale_bench.py [build-dir] [--limit SECONDS]
"""
import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time

from hdbench import (ROOT, host, import_onnx, least_memory, machine_file,
                     read_json, search_command, write_section, zoo_model)

MODELS = ["alexnet", "vgg16", "resnet50", "inception_v3"]
DEVICES = [16, 64, 256, 1024, 2048]
BATCH = 8192
# The goals on a 2-core machine, seconds.
GOALS = {("resnet50", 256): 3, ("inception_v3", 1024): 60,
         **{(model, 64): 1 for model in MODELS}}


def h200_nodes(tmp, devices):
    """h200-node's figures, with as many nodes as `devices` needs."""
    return machine_file(tmp, "h200-node", name=f"h200-x{devices}",
                        nodes=devices // 8)


def plan(build, mlir, machine, devices, strategy, report, limit):
    """(wall seconds, peak RSS bytes, report or None when stopped/failed).
    Runs the search itself rather than through hdbench.search: it measures
    hd-opt under /usr/bin/time and stops it at the limit."""
    cmd = ["/usr/bin/time", "-f", "%M"] + search_command(
        build, mlir, devices, machine, strategy, report)
    start = time.perf_counter()
    # Its own process group: a stopped run must not go on under /usr/bin/time
    # and slow the runs after it.
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True, start_new_session=True)
    try:
        _, stderr = p.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return time.perf_counter() - start, None, None
    wall = time.perf_counter() - start
    rss = int(stderr.strip().splitlines()[-1]) * 1024
    if p.returncode != 0:
        message = stderr.strip().splitlines()[0]
        least = least_memory(message)
        return wall, rss, {"error": f"nothing fits (least {least})"
                           if least else message}
    return wall, rss, read_json(report)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default=os.path.join(ROOT, "build"))
    ap.add_argument("--limit", type=float, default=120)
    args = ap.parse_args()
    out = ["## Search time against the device count", ""]
    out.append(f"Command: `bench/search_scale_bench.py {os.path.relpath(args.build, ROOT)}"
               f" --limit {args.limit:g}`. Machine: {host()}.")
    out.append("")
    out.append(f"Global batch {BATCH} on 8-GPU H200 nodes (`h200-node`'s figures, "
               "more nodes). Wall time and peak memory of the whole `hd-opt` "
               "run (start, import of the IR, cost tables, search, report), and "
               "the report's `search_ms` (candidates, cost tables and search); runs "
               f"stopped at {args.limit:g} s are marked so. Goals (wall time): every "
               "model on 64 devices under 1 s, ResNet-50 on 256 devices under "
               "3 s, Inception-v3 on 1024 under 60 s, 2 GB of memory.")
    out.append("")
    out.append("| model | devices | wall s | search s | peak MB | exact | rounds | candidates with exact tables | layer-wise vs data | goal |")
    out.append("|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for model in MODELS:
            mlir = os.path.join(tmp, f"{model}.mlir")
            import_onnx(args.build, zoo_model(model), mlir, BATCH)
            for d in DEVICES:
                machine = h200_nodes(tmp, d)
                report = os.path.join(tmp, "r.json")
                wall, rss, r = plan(args.build, mlir, machine, d, "layerwise",
                                    report, args.limit)
                goal = GOALS.get((model, d))
                goal_text = f"< {goal} s" if goal else ""
                if r is None:
                    out.append(f"| {model} | {d} | > {args.limit:g} (stopped) | | | | | | | "
                               f"{goal_text} |")
                    print(out[-1], flush=True)
                    continue
                if "error" in r:
                    out.append(f"| {model} | {d} | {wall:.1f} | | {rss / 1e6:.0f} | "
                               f"{r['error']} | | | | {goal_text} |")
                    print(out[-1], flush=True)
                    continue
                _, _, data = plan(args.build, mlir, machine, d, "data",
                                  os.path.join(tmp, "d.json"), args.limit)
                speedup = (f"{data['predicted_ms'] / r['predicted_ms']:.2f}x"
                           if data and "error" not in data else "-")
                met = ("" if not goal else
                       f"{goal_text}: {'met' if wall < goal else 'not met'}")
                search = r["search"]
                exact_tables = (f"{search['exact_configs']} of {search['all_configs']}"
                                if search.get("rounds") else "all")
                out.append(f"| {model} | {d} | {wall:.1f} | {r['search_ms'] / 1e3:.1f} | "
                           f"{rss / 1e6:.0f} | "
                           f"{search['exact']} | {search.get('rounds') or '-'} | "
                           f"{exact_tables} | {speedup} | {met} |")
                print(out[-1], flush=True)
        out += densenet(args.build, tmp, args.limit)
    print("\n".join(out))
    sys.exit(write_section("search-scale", out))


def densenet(build, tmp, limit):
    """DenseNet-121 at batch 512 on p100-cluster (16 devices): the graph
    that is not series-parallel, searched with the mini-bucket bound. Its
    export comes from Debian's torchvision, as the families tests do."""
    onnx = os.path.join(tmp, "densenet121.onnx")
    mlir = os.path.join(tmp, "densenet121.mlir")
    exported = subprocess.run(
        ["/usr/bin/python3", os.path.join(ROOT, "test", "Training", "Inputs",
                                          "torchvision_reference.py"),
         "export", onnx, "densenet121"], capture_output=True, text=True)
    if exported.returncode:
        return ["", "DenseNet-121: not measured (torchvision export failed: "
                f"{exported.stderr.strip().splitlines()[-1:]})."]
    import_onnx(build, onnx, mlir, 512)
    out = ["", "DenseNet-121 (not series-parallel), batch 512 on 16 devices: "
           "`p100-cluster` (16 GiB, where the fastest strategy does not fit) "
           "and the same machine with 64 GiB. Goal: exact or a proven gap "
           "under 1% in under 5 s.", "",
           "| machine | wall s | peak MB | predicted ms | lower bound ms | proven gap | memory binds |",
           "|---|---|---|---|---|---|---|"]
    big = machine_file(tmp, "p100-cluster", name="p100-64gib", mem_gib=64)
    for machine, name in [("p100-cluster", "p100-cluster"), (big, "p100, 64 GiB")]:
        report = os.path.join(tmp, "dn.json")
        wall, rss, r = plan(build, mlir, machine, 16, "layerwise", report,
                            limit)
        if r is None or "error" in r:
            out.append(f"| {name} | {wall:.1f} | | {r['error'] if r else 'stopped'} | | | |")
            continue
        s = r["search"]
        gap = (r["predicted_ms"] - s["lower_bound_ms"]) / r["predicted_ms"]
        out.append(f"| {name} | {wall:.1f} | {rss / 1e6:.0f} | {r['predicted_ms']:.1f} | "
                   f"{s['lower_bound_ms']:.1f} | {'exact' if s['exact'] else f'{100 * gap:.2f}%'} | "
                   f"{s['capacity_binds']} |")
        print(out[-1], flush=True)
    return out


if __name__ == "__main__":
    main()
