# Builds the seeds of hd-onnx-weights-fuzzer that the repository's other
# models do not give it: FLOAT initializers (raw_data and float_data), a
# non-FLOAT one, an initializer that is also a graph input (IR 3 style),
# weights that are only inputs, and a symbolic batch. Run with Debian's
# python3 (python3-onnx):
#   /usr/bin/python3 make-hd-onnx-weights-fuzzer-seeds.py
# The outputs are checked in next to this script.
import os

import numpy as np
import onnx
from onnx import TensorProto, helper as h, numpy_helper

here = os.path.dirname(os.path.abspath(__file__))


def ramp(shape, start):
    n = int(np.prod(shape))
    return (start + 0.25 * np.arange(n, dtype=np.float32)).reshape(shape)


def conv_model(ir_version, initializers_as_inputs):
    w = numpy_helper.from_array(ramp([4, 3, 3, 3], -2.0), "w")  # raw_data
    b = h.make_tensor("b", TensorProto.FLOAT, [4], [0.5, -0.5, 1.0, -1.0])
    shape = numpy_helper.from_array(np.array([0, -1], dtype=np.int64), "shape")
    inputs = [h.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["batch", 3, 6, 6]),
              h.make_tensor_value_info("wf", TensorProto.FLOAT, [5, 64])]
    if initializers_as_inputs:
        inputs += [h.make_tensor_value_info("w", TensorProto.FLOAT,
                                            [4, 3, 3, 3]),
                   h.make_tensor_value_info("b", TensorProto.FLOAT, [4]),
                   h.make_tensor_value_info("shape", TensorProto.INT64, [2])]
    nodes = [
        h.make_node("Conv", ["x", "w", "b"], ["c"], kernel_shape=[3, 3],
                    pads=[0, 0, 0, 0]),
        h.make_node("Relu", ["c"], ["r"]),
        h.make_node("Reshape", ["r", "shape"], ["f"]),
        h.make_node("Gemm", ["f", "wf"], ["y"], transB=1),
    ]
    graph = h.make_graph(
        nodes, "seed", inputs,
        [h.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 5])],
        initializer=[w, b, shape])
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 13)],
                         doc_string="a seed of hd-onnx-weights-fuzzer")
    model.ir_version = ir_version
    onnx.checker.check_model(model)
    return model


onnx.save(conv_model(8, False), os.path.join(here, "hd-onnx-weights-fuzzer", "conv.onnx"))
onnx.save(conv_model(3, True), os.path.join(here, "hd-onnx-weights-fuzzer", "conv-ir3.onnx"))
