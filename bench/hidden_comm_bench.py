#!/usr/bin/python3
"""Communication hidden behind compute, measured on this host's CPU processes.

Two switches of the runtime, each run on and off in alternation on one
compiled program, so that both see the same host:
- --overlap-sync: ResNet-50 with data parallelism on 2 processes; the
  gradient sums' whole time (grad_sync_ms) against the part the step waited
  for (grad_sync_exposed_ms), and the step.
- --early-transfers: the model and layer-wise strategies of AlexNet and
  ResNet-50 on 2 and 4 processes; the step and the time in transfers.
Writes the section "hidden-communication" of docs/results.md.

usage: bench/hidden_comm_bench.py [build-dir] [--steps N] [--repeats R]
"""
import argparse
import os
import statistics
import tempfile
import time

from hdbench import (ROOT, compile_program, host, import_onnx, run_program,
                     write_section, zoo_model)

BATCH = {"alexnet": 8, "resnet50": 2}
OVERLAP_CASES = [("resnet50", "data", 2)]
TRANSFER_CASES = [(m, s, n) for m in ("alexnet", "resnet50")
                  for n in (2, 4) for s in ("model", "layerwise")]


def compile_case(build, tmp, model, strategy, n):
    src = os.path.join(tmp, "%s.mlir" % model)
    if not os.path.exists(src):
        import_onnx(build, zoo_model(model), src, BATCH[model])
    return compile_program(build, src, os.path.join(
        tmp, "%s-%s-%d.exe" % (model, strategy, n)), n, "cpu", strategy)


def measure(exe, n, flag, steps, repeats, tmp):
    """Runs `exe` with `flag` off and on in alternation; per mode, the median
    step after each run's first and the mean of each metric over the
    runs."""
    runs = {"off": [], "on": []}
    for _ in range(repeats):
        for mode in ("off", "on"):
            runs[mode].append(run_program(
                exe, ["--steps", str(steps), "--quiet", flag, mode],
                os.path.join(tmp, "metrics.json"), n, timeout=3600))
    result = {}
    for mode, metrics in runs.items():
        steps_ms = [s for m in metrics for s in m["step_ms"][1:]]
        mean = lambda key: statistics.mean(m[key] for m in metrics)
        result[mode] = {"step": statistics.median(steps_ms),
                        "transfer": mean("transfer_ms"),
                        "sync": mean("grad_sync_ms"),
                        "exposed": mean("grad_sync_exposed_ms"),
                        "losses": [m["losses"] for m in metrics]}
    return result


def main():
    p = argparse.ArgumentParser()
    p.add_argument("build", nargs="?", default=os.path.join(ROOT, "build"))
    p.add_argument("--steps", type=int, default=8)
    p.add_argument("--repeats", type=int, default=2)
    args = p.parse_args()
    tmp = tempfile.mkdtemp(prefix="hd-hidden-")
    started = time.time()

    overlap = []
    for model, strategy, n in OVERLAP_CASES:
        exe = compile_case(args.build, tmp, model, strategy, n)
        r = measure(exe, n, "--overlap-sync", args.steps, args.repeats, tmp)
        overlap.append((model, strategy, n, r))
        print("%s %s %d: sync off %.1f/%.1f ms, on %.1f/%.1f ms" % (
            model, strategy, n, r["off"]["exposed"], r["off"]["sync"],
            r["on"]["exposed"], r["on"]["sync"]), flush=True)
    transfers = []
    for model, strategy, n in TRANSFER_CASES:
        exe = compile_case(args.build, tmp, model, strategy, n)
        r = measure(exe, n, "--early-transfers", args.steps, args.repeats, tmp)
        # Posting early moves the same values; only the order in which a
        # producer's readers add their gradients in may differ. Later steps
        # of these small batches amplify rounding: compare the first two.
        for off, on in zip(r["off"]["losses"], r["on"]["losses"]):
            if any(abs(a - b) > 1e-5 * abs(a) for a, b in zip(off[:2], on[:2])):
                raise SystemExit("%s %s %d: --early-transfers changed the "
                                 "losses: %s against %s" % (
                                     model, strategy, n, on, off))
        transfers.append((model, strategy, n, r))
        print("%s %s %d: step off %.1f on %.1f ms, transfers off %.1f on "
              "%.1f ms" % (model, strategy, n, r["off"]["step"],
                           r["on"]["step"], r["off"]["transfer"],
                           r["on"]["transfer"]), flush=True)

    out = ["## Communication hidden behind compute (CPU processes)", "",
           "Command: `bench/hidden_comm_bench.py --steps %d --repeats %d` "
           "(writes this section; %d s). Machine: %s. Each program runs with "
           "the switch off and on in alternation, %d times each; the step is "
           "the median of the steps after each run's first, the other times "
           "are means per step. Strategies from the `cpu` machine." % (
               args.steps, args.repeats, time.time() - started, host(),
               args.repeats), "",
           "### Gradient sums beside the backward pass (`--overlap-sync`)", "",
           "| model | batch | strategy | processes | sync off: exposed / whole ms "
           "| sync on: exposed / whole ms | exposed share on | step off ms "
           "| step on ms | on / off |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for model, strategy, n, r in overlap:
        off, on = r["off"], r["on"]
        out.append("| %s | %d | %s | %d | %.1f / %.1f | %.1f / %.1f | %.0f%% "
                   "| %.1f | %.1f | %.2f |" % (
                       model, BATCH[model], strategy, n, off["exposed"],
                       off["sync"], on["exposed"], on["sync"],
                       100 * on["exposed"] / on["sync"], off["step"],
                       on["step"], on["step"] / off["step"]))
    out += ["", "### Transfers posted early (`--early-transfers`)", "",
            "| model | batch | strategy | processes | step off ms | step on ms "
            "| on / off | transfers off ms | transfers on ms |",
            "|---|---|---|---|---|---|---|---|---|"]
    for model, strategy, n, r in transfers:
        off, on = r["off"], r["on"]
        out.append("| %s | %d | %s | %d | %.1f | %.1f | %.2f | %.1f | %.1f |"
                   % (model, BATCH[model], strategy, n, off["step"], on["step"],
                      on["step"] / off["step"], off["transfer"],
                      on["transfer"]))
    out += ["", "Every program's first two losses agree to 1e-5 with early "
            "transfers on and off (the driver stops otherwise): a producer's "
            "readers may add their gradients in another order."]
    return write_section("hidden-communication", out)


if __name__ == "__main__":
    raise SystemExit(main())
