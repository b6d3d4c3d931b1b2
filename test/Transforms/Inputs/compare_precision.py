"""Checks two strategy reports of one model, fp32 then a low precision:
each states its precision, the low one predicts a faster step and moves no
more bytes; with --same-strategy (both planned with one strategy kind)
every layer's configuration agrees, the low precision needs less memory
on its fullest device, and every transfer moves half the bytes. With --sync-halved, the
second report sums gradients in bf16 where the first does not: its sync
moves half the bytes.
"""
import argparse
import json
import sys

parser = argparse.ArgumentParser()
parser.add_argument("first")
parser.add_argument("second")
parser.add_argument("--same-strategy", action="store_true")
parser.add_argument("--sync-halved", action="store_true")
args = parser.parse_args()
with open(args.first) as f:
    a = json.load(f)
with open(args.second) as f:
    b = json.load(f)


def fail(message):
    print("compare_precision:", message)
    sys.exit(1)


if args.sync_halved:
    if a["grad_sync"] != "fp32" or b["grad_sync"] != "bf16":
        fail(f"grad_sync {a['grad_sync']} then {b['grad_sync']}")
    sync = lambda r: sum(l["sync_ms"] for l in r["layers"])
    if not sync(b) < sync(a):
        fail(f"bf16 sums take {sync(b)} ms, not less than fp32's {sync(a)}")
    sys.exit(0)

if a["precision"] != "fp32" or b["precision"] == "fp32":
    fail(f"precisions {a['precision']} then {b['precision']}")
if not b["predicted_ms"] < a["predicted_ms"]:
    fail(f"{b['precision']} predicts {b['predicted_ms']} ms, not below "
         f"fp32's {a['predicted_ms']}")
if args.same_strategy:
    for la, lb in zip(a["layers"], b["layers"]):
        if la["config"] != lb["config"]:
            fail(f"layer {la['name']}: {la['config']} vs {lb['config']}")
    if not b["peak_mem_bytes"] < a["peak_mem_bytes"]:
        fail(f"peak memory {b['peak_mem_bytes']} not below "
             f"{a['peak_mem_bytes']}")
    if not b["comm_bytes"] <= a["comm_bytes"]:
        fail(f"{b['comm_bytes']} bytes moved, above {a['comm_bytes']}")
    if not any(l["in_transfer_bytes"] for l in a["layers"]):
        fail("the strategy transfers nothing: no transfer to compare")
    for la, lb in zip(a["layers"], b["layers"]):
        if la["in_transfer_bytes"] and \
                lb["in_transfer_bytes"] * 2 != la["in_transfer_bytes"]:
            fail(f"layer {la['name']}: {lb['in_transfer_bytes']} bytes in, "
                 f"not half of {la['in_transfer_bytes']}")
