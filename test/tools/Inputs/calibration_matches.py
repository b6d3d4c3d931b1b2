#!/usr/bin/python3
"""Checks a machine file made by hd-profile --import-calibration against
the calibration it came from: the rates are the measured ones; the links are
the measured ones (`links`) or the named base machine's.

usage: calibration_matches.py CALIBRATION.txt MACHINE.json links|BASE
"""
import json
import math
import os
import sys

cal_path, machine_path, links = sys.argv[1:4]
cal = {}
for line in open(cal_path):
    if line.startswith("#") or not line.strip():
        continue
    key, value = line.rstrip("\n").split(" ", 1)
    if key not in ("backend", "device", "allreduce"):
        cal[key] = float(value)
machine = json.load(open(machine_path))
wrong = []


def same(field, want):
    got = machine.get(field)
    if got is None or not math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12):
        wrong.append("%s: %r, want %r" % (field, got, want))


same("peak_gflops", cal["dense_gflops"])
same("mem_gbps", cal["mem_gbps"])
same("launch_us", cal["launch_us"])
same("efficiency", 1.0)
if links == "links":
    same("latency_us", cal["latency_us"])
    same("allreduce_gbps", cal["allreduce_gbps"])
    same("intra_node_gbps", cal["p2p_gbps"])
    same("cores_per_node", cal["cores"])
else:
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "..", "..", "..")
    base = json.load(open(os.path.join(root, "lib", "CostModel", "machines",
                                       links + ".json")))
    for field in ("latency_us", "intra_node_gbps", "inter_node_gbps",
                  "nodes", "devices_per_node"):
        if field in base:
            same(field, base[field])
print("calibration matches" if not wrong else "\n".join(wrong))
