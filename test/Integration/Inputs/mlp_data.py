#!/usr/bin/env python3
"""Writes 16 samples of 16 features and a label in 0..9 (mlp.mlir's --data)."""
import struct
import sys

with open(sys.argv[1], "wb") as f:
    for s in range(16):
        f.write(struct.pack("<i", s % 10))
        f.write(struct.pack("<16f", *((s * 16 + i) % 7 / 7.0 - 0.5 for i in range(16))))
