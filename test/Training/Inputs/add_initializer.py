"""Copies an ONNX model, adding a FLOAT initializer the graph does not use:
a model with weights of another network.

  add_initializer.py IN OUT NAME
"""
import sys

import numpy as np
import onnx
from onnx import numpy_helper

m = onnx.load(sys.argv[1])
m.graph.initializer.append(
    numpy_helper.from_array(np.zeros(3, np.float32), sys.argv[3]))
onnx.save(m, sys.argv[2])
