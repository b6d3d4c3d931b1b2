# Builds demo_cnn.onnx, the small CNN `make demo` trains on 4 CPU processes:
# 32x32 images, a stem, an Inception-style block (1x1, 1x1 -> 3x3 and
# pool -> 1x1 branches, concatenated and projected) with a residual add, a
# strided convolution, global pooling, dropout and a 10-class classifier.
# No weights: hd initializes them. Run with Debian's python3 (python3-onnx):
#   /usr/bin/python3 make_demo_cnn.py
import onnx
from onnx import TensorProto, helper as h

def conv(name, x, y, w, shape, k, pads=0, stride=1, bias=True):
    inputs = [x, w] + ([w + "_b"] if bias else [])
    params.append(h.make_tensor_value_info(w, TensorProto.FLOAT, shape))
    if bias:
        params.append(h.make_tensor_value_info(w + "_b", TensorProto.FLOAT,
                                               [shape[0]]))
    return h.make_node("Conv", inputs, [y], name=name, kernel_shape=[k, k],
                       pads=[pads] * 4, strides=[stride, stride])

def bn(name, x, y, c):
    names = [name + s for s in ("_scale", "_shift", "_mean", "_var")]
    for n in names:
        params.append(h.make_tensor_value_info(n, TensorProto.FLOAT, [c]))
    return h.make_node("BatchNormalization", [x] + names, [y], name=name,
                       epsilon=1e-5, momentum=0.9)

params = []
nodes = [
    conv("stem/conv", "x", "s0", "w_stem", [32, 3, 3, 3], 3, pads=1, bias=False),
    bn("stem/bn", "s0", "s1", 32),
    h.make_node("Relu", ["s1"], ["stem"], name="stem/relu"),
    conv("mixed/a/conv1x1", "stem", "a0", "w_a", [16, 32, 1, 1], 1),
    h.make_node("Relu", ["a0"], ["a"], name="mixed/a/relu"),
    conv("mixed/b/conv1x1", "stem", "b0", "w_b0", [16, 32, 1, 1], 1),
    h.make_node("Relu", ["b0"], ["b1"], name="mixed/b/relu1"),
    conv("mixed/b/conv3x3", "b1", "b2", "w_b1", [24, 16, 3, 3], 3, pads=1),
    h.make_node("Relu", ["b2"], ["b"], name="mixed/b/relu2"),
    h.make_node("AveragePool", ["stem"], ["c0"], name="mixed/c/avgpool",
                kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1],
                count_include_pad=1),
    conv("mixed/c/conv1x1", "c0", "c1", "w_c", [8, 32, 1, 1], 1),
    h.make_node("Relu", ["c1"], ["c"], name="mixed/c/relu"),
    h.make_node("Concat", ["a", "b", "c"], ["cat"], name="mixed/concat",
                axis=1),
    conv("mixed/project", "cat", "p0", "w_p", [32, 48, 1, 1], 1, bias=False),
    bn("mixed/bn", "p0", "p1", 32),
    h.make_node("Add", ["p1", "stem"], ["r0"], name="mixed/residual"),
    h.make_node("Relu", ["r0"], ["r"], name="mixed/relu"),
    h.make_node("MaxPool", ["r"], ["m"], name="pool", kernel_shape=[2, 2],
                strides=[2, 2]),
    conv("down/conv", "m", "d0", "w_d", [64, 32, 3, 3], 3, pads=1, stride=2,
         bias=False),
    bn("down/bn", "d0", "d1", 64),
    h.make_node("Relu", ["d1"], ["d"], name="down/relu"),
    h.make_node("GlobalAveragePool", ["d"], ["g"], name="gap"),
    h.make_node("Flatten", ["g"], ["f"], name="flatten", axis=1),
    h.make_node("Constant", [], ["ratio"], name="drop/ratio",
                value=h.make_tensor("r", TensorProto.FLOAT, [], [0.2])),
    h.make_node("Dropout", ["f", "ratio"], ["fd"], name="drop"),
    h.make_node("Gemm", ["fd", "w_fc", "b_fc"], ["logits"], name="fc",
                transB=1),
]
params += [h.make_tensor_value_info("w_fc", TensorProto.FLOAT, [10, 64]),
           h.make_tensor_value_info("b_fc", TensorProto.FLOAT, [10])]
image = h.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 32, 32])
out = h.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 10])
graph = h.make_graph(nodes, "demo_cnn", [image] + params, [out])
onnx.save(h.make_model(graph, opset_imports=[h.make_opsetid("", 13)]),
          "demo_cnn.onnx")
