# Builds the small ONNX models that test hd's importer: a CNN with every
# supported layer kind, models with unsupported nodes and attributes, and
# malformed ones. Run with Debian's python3 (python3-onnx):
#   /usr/bin/python3 make_models.py
# The outputs are checked in next to this script.
import onnx
from onnx import TensorProto, helper as h

def image(name, c, hw, batch="batch"):
    return h.make_tensor_value_info(name, TensorProto.FLOAT, [batch, c, hw, hw])

def param(name, shape):
    return h.make_tensor_value_info(name, TensorProto.FLOAT, shape)

def save(graph, path, opset=13):
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)])
    onnx.save(model, path)

# A small CNN with branches, a residual add, a zero Pad folded into an
# average pool, batch norm, dropout and a classifier.
nodes = [
    h.make_node("Conv", ["x", "w0", "b0"], ["c0"], name="stem/conv",
                kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1]),
    h.make_node("BatchNormalization", ["c0", "s0", "o0", "m0", "v0"], ["n0"],
                name="stem/bn", epsilon=1e-5, momentum=0.9),
    h.make_node("Relu", ["n0"], ["r0"], name="stem/relu"),
    h.make_node("Conv", ["r0", "w1"], ["a1"], name="branch_a/conv1x1",
                kernel_shape=[1, 1]),
    h.make_node("Conv", ["r0", "w2"], ["a2"], name="branch_b/conv3x3",
                kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=2),
    h.make_node("Constant", [], ["padv"], name="branch_c/pads",
                value=h.make_tensor("p", TensorProto.INT64, [8],
                                    [0, 0, 1, 1, 0, 0, 1, 1])),
    h.make_node("Pad", ["r0", "padv"], ["pd"], name="branch_c/pad",
                mode="constant"),
    h.make_node("AveragePool", ["pd"], ["a3"], name="branch_c/avgpool",
                kernel_shape=[3, 3], strides=[1, 1]),
    h.make_node("Concat", ["a1", "a2", "a3"], ["cat"], name="mix/concat",
                axis=1),
    h.make_node("Conv", ["cat", "w3"], ["proj"], name="mix/project",
                kernel_shape=[1, 1]),
    h.make_node("Add", ["proj", "r0"], ["res"], name="mix/residual"),
    h.make_node("MaxPool", ["res"], ["mp"], name="pool", kernel_shape=[2, 2],
                strides=[2, 2], ceil_mode=1),
    h.make_node("GlobalAveragePool", ["mp"], ["gap"], name="gap"),
    h.make_node("Flatten", ["gap"], ["flat"], name="flatten", axis=1),
    h.make_node("Constant", [], ["ratio"], name="drop/ratio",
                value=h.make_tensor("r", TensorProto.FLOAT, [], [0.25])),
    h.make_node("Dropout", ["flat", "ratio"], ["dr"], name="drop"),
    h.make_node("Gemm", ["dr", "wf", "bf"], ["logits"], name="fc", transB=1),
]
inputs = [image("x", 3, 15),
          param("w0", [8, 3, 3, 3]), param("b0", [8]),
          param("s0", [8]), param("o0", [8]), param("m0", [8]), param("v0", [8]),
          param("w1", [4, 8, 1, 1]), param("w2", [6, 4, 3, 3]),
          param("w3", [8, 18, 1, 1]), param("wf", [10, 8]), param("bf", [10])]
out = h.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 10])
save(h.make_graph(nodes, "small_cnn", inputs, [out]), "small_cnn.onnx")

# Three unsupported nodes: an op type, an attribute, and an axis.
nodes = [
    h.make_node("Conv", ["x", "w0"], ["c0"], name="conv", kernel_shape=[3, 3]),
    h.make_node("LeakyRelu", ["c0"], ["l0"], name="act/leaky", alpha=0.1),
    h.make_node("MaxPool", ["l0"], ["p0"], name="pool/dilated",
                kernel_shape=[2, 2], dilations=[2, 2]),
    h.make_node("Softmax", ["c0"], ["s0"], name="head/softmax", axis=1),
    h.make_node("Concat", ["c0", "c0"], ["cat"], name="cat/height", axis=2),
    h.make_node("GlobalAveragePool", ["cat"], ["g"], name="gap"),
    h.make_node("Flatten", ["g"], ["logits"], name="flatten"),
]
inputs = [image("x", 3, 8), param("w0", [4, 3, 3, 3])]
out = h.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 4])
save(h.make_graph(nodes, "unsupported", inputs, [out]), "unsupported.onnx")

# A declared output shape that disagrees with the layer's attributes.
nodes = [h.make_node("Conv", ["x", "w"], ["y"], name="conv",
                     kernel_shape=[3, 3])]
out = h.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4, 7, 7])
save(h.make_graph(nodes, "bad_shape", [image("x", 3, 8, 2),
                                       param("w", [4, 3, 3, 3])], [out]),
     "wrong_declared_shape.onnx")

# A weight whose channels do not match its input.
nodes = [h.make_node("Conv", ["x", "w"], ["c"], name="conv/mismatch",
                     kernel_shape=[3, 3]),
         h.make_node("GlobalAveragePool", ["c"], ["g"], name="gap"),
         h.make_node("Flatten", ["g"], ["logits"], name="flatten")]
out = h.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 4])
save(h.make_graph(nodes, "bad_weight", [image("x", 3, 8),
                                        param("w", [4, 5, 3, 3])], [out]),
     "weight_mismatch.onnx")

# 4 KiB of random bytes (fixed seed): not a protobuf message.
import random
rng = random.Random(2018)
with open("random.bin", "wb") as f:
    f.write(bytes(rng.getrandbits(8) for _ in range(4096)))

# Attributes and Pads the importer must refuse rather than misread.
nodes = [
    h.make_node("Constant", [], ["pv"], name="pads",
                value=h.make_tensor("p", TensorProto.INT64, [8],
                                    [0, 0, 1, 1, 0, 0, 1, 1])),
    h.make_node("Constant", [], ["ax"], name="axes",
                value=h.make_tensor("a", TensorProto.INT64, [4], [1, 0, 3, 2])),
    h.make_node("Pad", ["x", "pv", "", "ax"], ["p1"], name="pad/axes"),
    h.make_node("Conv", ["p1", "w"], ["c1"], name="conv/after_axes_pad",
                kernel_shape=[3, 3]),
    h.make_node("Pad", ["c1"], ["p2"], name="pad/value", mode="constant",
                pads=[0, 0, 1, 1, 0, 0, 1, 1], value=5.0),
    h.make_node("Conv", ["p2", "w2"], ["c2"], name="conv/after_value_pad",
                kernel_shape=[3, 3]),
    h.make_node("GlobalAveragePool", ["c2"], ["g"], name="gap"),
    h.make_node("Flatten", ["g"], ["f"], name="flatten"),
    h.make_node("Gemm", ["f", "wf"], ["logits"], name="fc/int_alpha",
                alpha=2),
]
inputs = [image("x", 3, 8), param("w", [4, 3, 3, 3]), param("w2", [4, 4, 3, 3]),
          param("wf", [10, 4])]
out = h.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 10])
save(h.make_graph(nodes, "misread", inputs, [out]), "misread.onnx", opset=18)

# Today's CNN blocks: ReLU6 as Clip, hard swish written as x * HardSigmoid(x)
# (before opset 14), squeeze-and-excitation with a sigmoid gate, SiLU as
# x * Sigmoid(x), and ReduceMean as the global pool.
def const(name, dtype, dims, values):
    return h.make_node("Constant", [], [name], name=name,
                       value=h.make_tensor(name, dtype, dims, values))

nodes = [
    h.make_node("Conv", ["x", "w0"], ["c0"], name="stem/conv",
                kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
    const("lo", TensorProto.FLOAT, [], [0.0]),
    const("hi", TensorProto.FLOAT, [], [6.0]),
    h.make_node("Clip", ["c0", "lo", "hi"], ["r6"], name="stem/relu6"),
    h.make_node("Conv", ["r6", "wd"], ["dw"], name="block/depthwise",
                kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=8),
    h.make_node("HardSigmoid", ["dw"], ["hsg"], name="block/hardsigmoid",
                alpha=1.0 / 6, beta=0.5),
    h.make_node("Mul", ["dw", "hsg"], ["hsw"], name="block/hardswish"),
    h.make_node("GlobalAveragePool", ["hsw"], ["sq"], name="se/squeeze"),
    h.make_node("Conv", ["sq", "ws1", "bs1"], ["s1"], name="se/reduce",
                kernel_shape=[1, 1]),
    h.make_node("Relu", ["s1"], ["s2"], name="se/relu"),
    h.make_node("Conv", ["s2", "ws2", "bs2"], ["s3"], name="se/expand",
                kernel_shape=[1, 1]),
    h.make_node("Sigmoid", ["s3"], ["gate"], name="se/gate"),
    h.make_node("Mul", ["gate", "hsw"], ["se"], name="se/scale"),
    h.make_node("Sigmoid", ["se"], ["sg"], name="head/sigmoid"),
    h.make_node("Mul", ["se", "sg"], ["silu"], name="head/silu"),
    h.make_node("ReduceMean", ["silu"], ["mean"], name="head/mean",
                axes=[-1, -2], keepdims=0),
    h.make_node("Gemm", ["mean", "wf", "bf"], ["logits"], name="fc", transB=1),
]
inputs = [image("x", 3, 8), param("w0", [8, 3, 3, 3]), param("wd", [8, 1, 3, 3]),
          param("ws1", [2, 8, 1, 1]), param("bs1", [2]),
          param("ws2", [8, 2, 1, 1]), param("bs2", [8]),
          param("wf", [10, 8]), param("bf", [10])]
out = h.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 10])
save(h.make_graph(nodes, "modern_cnn", inputs, [out]), "modern_cnn.onnx")

# The same ops in their newer forms: HardSwish (opset 14), Gelu (opset 20)
# and ReduceMean's axes as an input (opset 18), keeping the dims.
nodes = [
    h.make_node("Conv", ["x", "w0"], ["c0"], name="conv", kernel_shape=[3, 3]),
    h.make_node("HardSwish", ["c0"], ["hs"], name="hardswish"),
    h.make_node("Gelu", ["hs"], ["ge"], name="gelu"),
    const("axes", TensorProto.INT64, [2], [2, 3]),
    h.make_node("ReduceMean", ["ge", "axes"], ["mean"], name="mean"),
    h.make_node("Flatten", ["mean"], ["flat"], name="flatten"),
    h.make_node("Gemm", ["flat", "wf"], ["logits"], name="fc", transB=1),
]
inputs = [image("x", 3, 8), param("w0", [4, 3, 3, 3]), param("wf", [10, 4])]
out = h.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 10])
save(h.make_graph(nodes, "opset20", inputs, [out]), "opset20.onnx", opset=20)

# What the new patterns refuse, each node named.
nodes = [
    h.make_node("Conv", ["x", "w0"], ["c0"], name="conv", kernel_shape=[3, 3]),
    h.make_node("Clip", ["c0", "x", ""], ["cl"], name="clip/variable_min"),
    h.make_node("Gelu", ["c0"], ["ge"], name="gelu/tanh", approximate="tanh"),
    const("two", TensorProto.FLOAT, [], [2.0]),
    h.make_node("Mul", ["c0", "two"], ["m1"], name="mul/constant"),
    h.make_node("GlobalAveragePool", ["c0"], ["g"], name="gap"),
    h.make_node("Mul", ["g", "c0"], ["m2"], name="mul/ok_either_order"),
    h.make_node("ReduceMean", ["c0"], ["rc"], name="mean/channels", axes=[1]),
    h.make_node("ReduceMean", ["m2"], ["rh"], name="mean/height", axes=[2]),
    h.make_node("HardSigmoid", ["c0"], ["hz"], name="hardsigmoid/flat",
                alpha=0.0),
    h.make_node("Sub", ["g", "c0"], ["sb"], name="sub/broadcast_first"),
    h.make_node("Flatten", ["g"], ["logits"], name="flatten"),
]
inputs = [image("x", 3, 8), param("w0", [4, 3, 3, 3])]
out = h.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 4])
save(h.make_graph(nodes, "modern_errors", inputs, [out]), "modern_errors.onnx")

# What the layout patterns refuse, each node named: reshapes other than a
# flatten or a channel shuffle, a reshape target that is not a constant,
# permutations other than channels-last and back, a 5-D view or a
# channels-last tensor read by another layer, slices and splits that are
# not along whole channels (a Slice without axes slices the batch), a Div
# by a constant, a MatMul or layer norm on N x C x H x W, a scale that
# broadcasts along the width, a channel shuffle reshaped back to another
# shape, and shape arithmetic hd cannot compute.
nodes = [
    h.make_node("Conv", ["x", "w0"], ["c0"], name="conv", kernel_shape=[1, 1]),
    const("to3d", TensorProto.INT64, [3], [0, 4, -1]),
    h.make_node("Reshape", ["c0", "to3d"], ["r3"], name="reshape/3d"),
    h.make_node("Shape", ["x"], ["dyn"], name="shape"),
    h.make_node("Reshape", ["c0", "c0"], ["rv"], name="reshape/variable"),
    h.make_node("Transpose", ["c0"], ["tw"], name="transpose/hw",
                perm=[0, 1, 3, 2]),
    const("to5d", TensorProto.INT64, [5], [0, 2, 2, 8, 8]),
    h.make_node("Reshape", ["c0", "to5d"], ["v5"], name="view5d"),
    h.make_node("Relu", ["v5"], ["rv5"], name="relu/5d"),
    const("zero", TensorProto.INT64, [1], [0]),
    const("two_i", TensorProto.INT64, [1], [2]),
    const("axis2", TensorProto.INT64, [1], [2]),
    h.make_node("Slice", ["c0", "zero", "two_i", "axis2"], ["sh"],
                name="slice/height"),
    h.make_node("Split", ["c0"], ["p0", "p1", "p2"], name="split/uneven",
                axis=1),
    const("half", TensorProto.FLOAT, [], [0.5]),
    h.make_node("Div", ["c0", "half"], ["dv"], name="div/plain"),
    h.make_node("MatMul", ["c0", "wm"], ["mm"], name="matmul/nchw"),
    h.make_node("LayerNormalization", ["c0", "ls", "lb"], ["ln"],
                name="layernorm/nchw", axis=1),
    h.make_node("Transpose", ["c0"], ["nhwc"], name="to_nhwc",
                perm=[0, 2, 3, 1]),
    h.make_node("Relu", ["nhwc"], ["rl"], name="relu/channels_last"),
    h.make_node("ReduceMean", ["nhwc"], ["rm"], name="mean/channels_last",
                axes=[-1]),
    h.make_node("Slice", ["c0", "zero", "two_i"], ["sn"],
                name="slice/no_axes"),
    h.make_node("Mul", ["c0", "ls3"], ["lw"], name="mul/scale_on_width"),
    const("group2", TensorProto.INT64, [5], [0, 2, 2, 8, 8]),
    h.make_node("Reshape", ["c0", "group2"], ["v2"], name="shuffle/view"),
    h.make_node("Transpose", ["v2"], ["t2"], name="shuffle/transpose",
                perm=[0, 2, 1, 3, 4]),
    const("back", TensorProto.INT64, [4], [0, -1, 0, 0]),
    h.make_node("Reshape", ["t2", "back"], ["b2"], name="shuffle/other_back"),
    h.make_node("Shape", ["c0"], ["dims"], name="shape/c0"),
    const("seven", TensorProto.INT64, [1], [7]),
    h.make_node("Gather", ["dims", "seven"], ["g7"], name="gather/out_of_range"),
    const("zero_d", TensorProto.INT64, [], [0]),
    h.make_node("Div", ["dims", "zero_d"], ["dz"], name="div/by_zero"),
    h.make_node("Unsqueeze", ["dims", "zero"], ["uq"], name="unsqueeze/vector"),
    h.make_node("GlobalAveragePool", ["c0"], ["g"], name="gap"),
    h.make_node("Flatten", ["g"], ["logits"], name="flatten"),
]
inputs = [image("x", 3, 8), param("w0", [4, 3, 1, 1]), param("wm", [8, 8]),
          param("ls", [4]), param("lb", [4]), param("ls3", [1, 1, 4])]
out = h.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 4])
save(h.make_graph(nodes, "layout_errors", inputs, [out]), "layout_errors.onnx")

# Dropout turned off (ratio 0, as torchvision's models with dropout=0
# export it) is no layer.
nodes = [
    h.make_node("Conv", ["x", "w0"], ["c0"], name="conv", kernel_shape=[3, 3]),
    const("off", TensorProto.FLOAT, [], [0.0]),
    h.make_node("Dropout", ["c0", "off"], ["d"], name="dropout/off"),
    h.make_node("Flatten", ["d"], ["logits"], name="flatten"),
]
inputs = [image("x", 3, 8), param("w0", [4, 3, 3, 3])]
out = h.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 144])
save(h.make_graph(nodes, "dropout_off", inputs, [out]), "dropout_off.onnx")

# Sum, difference, product and quotient with a per-sample, per-channel
# operand (a sigmoid gate of the global pool) or one of the same shape (a
# sigmoid), in either order for Add and Mul; the divisors are sigmoids,
# positive.
nodes = [
    h.make_node("Conv", ["x", "w0"], ["c0"], name="conv", kernel_shape=[3, 3],
                pads=[1, 1, 1, 1]),
    h.make_node("GlobalAveragePool", ["c0"], ["g"], name="gap"),
    h.make_node("Sigmoid", ["g"], ["gate"], name="gate"),
    h.make_node("Add", ["gate", "c0"], ["a"], name="add/gate_first"),
    h.make_node("Sub", ["a", "gate"], ["s"], name="sub"),
    h.make_node("Div", ["s", "gate"], ["d"], name="div"),
    h.make_node("Mul", ["d", "gate"], ["m"], name="mul"),
    h.make_node("Sigmoid", ["c0"], ["sg"], name="sigmoid"),
    h.make_node("Div", ["m", "sg"], ["q"], name="div/same_shape"),
    h.make_node("Sub", ["q", "c0"], ["r"], name="sub/same_shape"),
    h.make_node("Flatten", ["r"], ["f"], name="flatten"),
    h.make_node("Gemm", ["f", "wf"], ["logits"], name="fc", transB=1),
]
inputs = [image("x", 3, 6), param("w0", [4, 3, 3, 3]), param("wf", [5, 144])]
out = h.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 5])
save(h.make_graph(nodes, "binary_broadcast", inputs, [out]),
     "binary_broadcast.onnx")

# Per-channel parameters: a normalization ([1, C, 1, 1] mean, [C, 1, 1]
# standard deviation, buffers that --frozen-tensors keeps), a layer scale
# first in its Mul, and a bias added to N x F logits; the last Sub's
# subtrahend is a parameter too. The divisor starts at 1.5.
nodes = [
    h.make_node("Sub", ["x", "mean"], ["centered"], name="norm/sub"),
    h.make_node("Div", ["centered", "std"], ["normed"], name="norm/div"),
    h.make_node("Conv", ["normed", "w0"], ["c0"], name="conv", kernel_shape=[3, 3],
                pads=[1, 1, 1, 1]),
    h.make_node("Mul", ["scale", "c0"], ["scaled"], name="layer_scale"),
    h.make_node("Sub", ["scaled", "offset"], ["shifted"], name="offset"),
    h.make_node("Relu", ["shifted"], ["r"], name="relu"),
    h.make_node("Flatten", ["r"], ["f"], name="flatten"),
    h.make_node("Gemm", ["f", "wf"], ["g"], name="fc", transB=1),
    h.make_node("Add", ["g", "bias"], ["logits"], name="fc/bias"),
]
inputs = [image("x", 3, 6), param("w0", [4, 3, 3, 3]), param("wf", [5, 144])]
initializers = [
    h.make_tensor("mean", TensorProto.FLOAT, [1, 3, 1, 1], [0.4, 0.5, 0.6]),
    h.make_tensor("std", TensorProto.FLOAT, [3, 1, 1], [0.2, 0.25, 0.3]),
    h.make_tensor("scale", TensorProto.FLOAT, [4, 1, 1], [1.0] * 4),
    h.make_tensor("offset", TensorProto.FLOAT, [4, 1, 1], [0.0] * 4),
    h.make_tensor("bias", TensorProto.FLOAT, [5], [0.0] * 5),
]
out = h.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 5])
save(h.make_graph(nodes, "channel_operands", inputs, [out],
                  initializer=initializers), "channel_operands.onnx")

# What the per-channel patterns refuse: a parameter subtracted from or
# divided by an activation, a [C] vector on an N x C x H x W tensor (ONNX
# broadcasts it over the columns), a scalar constant; and, once the nodes
# import, a parameter two layers share.
nodes = [
    h.make_node("Conv", ["x", "w0"], ["c0"], name="conv", kernel_shape=[3, 3]),
    h.make_node("Sub", ["p", "c0"], ["s"], name="sub/parameter_first"),
    h.make_node("Div", ["p", "c0"], ["d"], name="div/parameter_first"),
    h.make_node("Mul", ["c0", "v"], ["m"], name="mul/vector_on_width"),
    h.make_node("Add", ["c0", "p"], ["a"], name="add/ok"),
    h.make_node("Flatten", ["a"], ["logits"], name="flatten"),
]
inputs = [image("x", 3, 6), param("w0", [4, 3, 3, 3]), param("p", [4, 1, 1]),
          param("v", [4])]
out = h.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 64])
save(h.make_graph(nodes, "channel_operand_errors", inputs, [out]),
     "channel_operand_errors.onnx")
nodes = [
    h.make_node("Conv", ["x", "w0"], ["c0"], name="conv", kernel_shape=[3, 3]),
    h.make_node("Mul", ["c0", "p"], ["m"], name="mul/first"),
    h.make_node("Add", ["m", "p"], ["a"], name="add/second"),
    h.make_node("Flatten", ["a"], ["logits"], name="flatten"),
]
inputs = [image("x", 3, 6), param("w0", [4, 3, 3, 3]), param("p", [4, 1, 1])]
save(h.make_graph(nodes, "shared_weights", inputs, [out]), "shared_weights.onnx")

# An op type's patterns, tried by benefit. A Mul of x and a Sigmoid(x) that
# another node reads too is no SiLU (the sigmoid would disappear into it),
# and a Div by something other than sqrt(2) starts no erf GELU: the layers
# take both. A shape value cast to float is not shape arithmetic.
nodes = [
    h.make_node("Conv", ["x", "w0"], ["c0"], name="conv", kernel_shape=[3, 3]),
    h.make_node("Sigmoid", ["c0"], ["s"], name="sigmoid/shared"),
    h.make_node("Mul", ["c0", "s"], ["m"], name="mul/not_silu"),
    h.make_node("Div", ["m", "s"], ["d"], name="div/not_gelu"),
    h.make_node("GlobalAveragePool", ["d"], ["g"], name="gap"),
    h.make_node("Flatten", ["g"], ["logits"], name="flatten"),
]
inputs = [image("x", 3, 6), param("w0", [4, 3, 3, 3])]
out = h.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 4])
save(h.make_graph(nodes, "pattern_order", inputs, [out]), "pattern_order.onnx")
# Op types that only shape arithmetic registers, on what it does not fold.
nodes = [
    h.make_node("Conv", ["x", "w0"], ["c0"], name="conv", kernel_shape=[3, 3]),
    const("zero", TensorProto.INT64, [], [0]),
    h.make_node("Gather", ["c0", "zero"], ["g0"], name="gather/activation"),
    h.make_node("Shape", ["c0"], ["dims"], name="shape"),
    h.make_node("Cast", ["dims"], ["fdims"], name="cast/to_float",
                to=TensorProto.FLOAT),
    h.make_node("Unsqueeze", ["c0", "zero"], ["u0"],
                name="unsqueeze/activation"),
    h.make_node("GlobalAveragePool", ["c0"], ["g"], name="gap"),
    h.make_node("Flatten", ["g"], ["logits"], name="flatten"),
]
save(h.make_graph(nodes, "fold_only_errors", inputs, [out]),
     "fold_only_errors.onnx")
