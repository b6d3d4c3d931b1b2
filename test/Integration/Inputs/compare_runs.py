#!/usr/bin/env python3
"""Compares two training runs: every step's loss (a relative 1e-4), and the
parameters (1e-4) and momentum (1e-3) they end with, from the checkpoints
they wrote. Prints "same" or "different" with the largest errors, and
exits with 3 where they differ.

  compare_runs.py A B

A and B name a run: A.json (its --metrics) and A.ckpt/ (its --checkpoint).
The runs should train at a rate where one step moves the weights
measurably, so that a gradient that goes missing shows.
"""
import json
import os
import sys

from checkpoints import read_checkpoint, tensor_errors

TOLERANCE = 1e-4
# Momentum sums every step's gradient, and a gradient that is zero in exact
# arithmetic (a convolution's bias before batch norm) is rounding noise that
# depends on the summation order (parallel_equals_serial.py): a looser
# bound. Observed: under 2e-5 after one step of the zoo's models.
STATE_TOLERANCE = 1e-3


def run_of(prefix):
    with open(prefix + ".json") as f:
        losses = json.load(f)["losses"]
    return losses, read_checkpoint(os.path.join(prefix + ".ckpt",
                                                "checkpoint.hd"))


(a, a_tensors), (b, b_tensors) = run_of(sys.argv[1]), run_of(sys.argv[2])
loss_err = max((abs(x - y) / abs(y) for x, y in zip(a, b)),
               default=float("inf"))
param_err, state_err = tensor_errors(a_tensors, b_tensors)
same = (len(a) == len(b) > 0 and loss_err <= TOLERANCE and
        param_err <= TOLERANCE and state_err <= STATE_TOLERANCE)
print("%s: %d losses, loss_err=%.2e param_err=%.2e momentum_err=%.2e" % (
    "same" if same else "different", len(a), loss_err, param_err, state_err))
sys.exit(0 if same else 3)
