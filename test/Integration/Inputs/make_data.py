#!/usr/bin/env python3
"""Writes a raw data file for a compiled program's --data option: SAMPLES
records of an int32 label and C*H*W float32 values (little-endian).

  make_data.py OUT SAMPLES C H W CLASSES [--bad-label INDEX]
"""
import random
import struct
import sys

out, samples, c, h, w, classes = sys.argv[1], *map(int, sys.argv[2:7])
bad = int(sys.argv[8]) if len(sys.argv) > 8 and sys.argv[7] == "--bad-label" else -1
rng = random.Random(7)
with open(out, "wb") as f:
    for s in range(samples):
        label = classes + 3 if s == bad else rng.randrange(classes)
        f.write(struct.pack("<i", label))
        f.write(struct.pack("<%df" % (c * h * w),
                            *(rng.uniform(-1, 1) for _ in range(c * h * w))))
