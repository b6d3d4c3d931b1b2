#!/usr/bin/env python3
"""Writes a raw data file for a compiled program's --data option: SAMPLES
records of an int32 label and C*H*W float32 values (little-endian).

  make_data.py OUT SAMPLES C H W CLASSES [--bad-label INDEX] [--inf INDEX]

--bad-label gives sample INDEX a label outside the classes; --inf makes one
of its values infinite.
"""
import argparse
import random
import struct

p = argparse.ArgumentParser()
p.add_argument("out")
p.add_argument("dims", nargs=5, type=int)
p.add_argument("--bad-label", type=int, default=-1)
p.add_argument("--inf", type=int, default=-1)
args = p.parse_args()
samples, c, h, w, classes = args.dims
rng = random.Random(7)
with open(args.out, "wb") as f:
    for s in range(samples):
        label = classes + 3 if s == args.bad_label else rng.randrange(classes)
        values = [rng.uniform(-1, 1) for _ in range(c * h * w)]
        if s == args.inf:
            values[len(values) // 2] = float("inf")
        f.write(struct.pack("<i", label))
        f.write(struct.pack("<%df" % len(values), *values))
