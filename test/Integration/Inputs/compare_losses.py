#!/usr/bin/env python3
"""Compares the per-step losses of two --metrics files: prints "same" when
every step agrees to a relative 1e-4, else "different", with the losses.

  compare_losses.py A.json B.json
"""
import json
import sys

a, b = (json.load(open(f))["losses"] for f in sys.argv[1:3])
same = len(a) == len(b) > 0 and all(
    abs(x - y) <= 1e-4 * abs(y) for x, y in zip(a, b))
print("same" if same else "different", a, b)
