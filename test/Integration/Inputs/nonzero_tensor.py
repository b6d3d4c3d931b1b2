#!/usr/bin/env python3
"""Prints how many values of a checkpoint tensor are non-zero.

  nonzero_tensor.py DIR/checkpoint.hd TENSOR
"""
import sys

from checkpoints import read_checkpoint

values, _ = read_checkpoint(sys.argv[1])[sys.argv[2]]
print("%s: %d of %d non-zero" % (sys.argv[2], int((values != 0).sum()),
                                 len(values)))
