"""An ONNX model whose weights hd must read and write in every layout it
imports: a convolution with a bias, batch norm with running statistics, a
MatMul over the channels of a channels-last tensor by a plain in x out
weight (a 1x1 convolution whose weight is stored transposed) with its bias,
a [C, 1, 1] layer scale (a depthwise 1x1 convolution), a Gemm with transB=0
(its weight stored as in x out, the transpose of hd's) and one with
transB=1 and a 1 x out bias.

  weights_roundtrip.py make OUT
    writes OUT/model.onnx (random weights), OUT/x.npy, OUT/y.npy (10 samples
    of 2x4x4 float32, 5 classes) and OUT/expected.json: the model's
    inference loss, top-1 and top-5 on them, computed here with numpy.
  weights_roundtrip.py check OUT METRICS EXPORTED
    hd's evaluation (--metrics) must equal numpy's to a relative 1e-5, and
    the model hd exported without training (--steps 0) must hold exactly
    the weights it read and pass onnx.checker.
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper as h, numpy_helper

rng = np.random.default_rng(5)


def weights():
    f = np.float32
    return {
        "conv.w": rng.normal(0, 0.5, (3, 2, 3, 3)).astype(f),
        "conv.b": rng.normal(0, 0.1, (3,)).astype(f),
        "bn.scale": rng.uniform(0.5, 1.5, (3,)).astype(f),
        "bn.shift": rng.normal(0, 0.1, (3,)).astype(f),
        "bn.mean": rng.normal(0, 0.2, (3,)).astype(f),
        "bn.var": rng.uniform(0.5, 2.0, (3,)).astype(f),
        "cl.w": rng.normal(0, 0.5, (3, 4)).astype(f),    # in x out
        "cl.b": rng.normal(0, 0.1, (4,)).astype(f),
        "scale": rng.uniform(0.5, 1.5, (4, 1, 1)).astype(f),
        "fc1.w": rng.normal(0, 0.2, (64, 8)).astype(f),  # transB=0: in x out
        "fc1.b": rng.normal(0, 0.1, (8,)).astype(f),
        "fc2.w": rng.normal(0, 0.3, (5, 8)).astype(f),   # transB=1: out x in
        "fc2.b": rng.normal(0, 0.1, (1, 5)).astype(f),
    }


def model(w):
    nodes = [
        h.make_node("Conv", ["x", "conv.w", "conv.b"], ["c"], name="conv",
                    kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        h.make_node("BatchNormalization",
                    ["c", "bn.scale", "bn.shift", "bn.mean", "bn.var"], ["b"],
                    name="bn", epsilon=1e-5, momentum=0.9),
        h.make_node("Relu", ["b"], ["r"], name="relu"),
        h.make_node("Transpose", ["r"], ["t"], name="nhwc", perm=[0, 2, 3, 1]),
        h.make_node("MatMul", ["t", "cl.w"], ["m"], name="linear"),
        h.make_node("Add", ["m", "cl.b"], ["mb"], name="linear_bias"),
        h.make_node("Transpose", ["mb"], ["u"], name="nchw", perm=[0, 3, 1, 2]),
        h.make_node("Mul", ["scale", "u"], ["ls"], name="layer_scale"),
        h.make_node("Flatten", ["ls"], ["f"], name="flatten"),
        h.make_node("Gemm", ["f", "fc1.w", "fc1.b"], ["g"], name="fc1"),
        h.make_node("Relu", ["g"], ["g1"], name="relu1"),
        h.make_node("Gemm", ["g1", "fc2.w", "fc2.b"], ["logits"], name="fc2",
                    transB=1),
    ]
    graph = h.make_graph(
        nodes, "roundtrip",
        [h.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 2, 4, 4])],
        [h.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 5])],
        [numpy_helper.from_array(v, k) for k, v in w.items()])
    m = h.make_model(graph, opset_imports=[h.make_opsetid("", 13)])
    onnx.checker.check_model(m)
    return m


def forward(w, x):
    n = len(x)
    pad = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    c = np.zeros((n, 3, 4, 4), np.float64)
    for o in range(3):
        for i in range(2):
            for ky in range(3):
                for kx in range(3):
                    c[:, o] += w["conv.w"][o, i, ky, kx] * \
                        pad[:, i, ky:ky + 4, kx:kx + 4]
        c[:, o] += w["conv.b"][o]
    s = lambda v: v[None, :, None, None]  # noqa: E731
    b = (c - s(w["bn.mean"])) / np.sqrt(s(w["bn.var"]) + 1e-5) * \
        s(w["bn.scale"]) + s(w["bn.shift"])
    r = np.maximum(b, 0)
    m = r.transpose(0, 2, 3, 1) @ w["cl.w"] + w["cl.b"]
    f = (m.transpose(0, 3, 1, 2) * w["scale"][None]).reshape(n, -1)
    g = np.maximum(f @ w["fc1.w"] + w["fc1.b"], 0)
    return g @ w["fc2.w"].T + w["fc2.b"]


def make(out):
    os.makedirs(out, exist_ok=True)
    w = weights()
    onnx.save(model(w), os.path.join(out, "model.onnx"))
    x = rng.normal(0, 1, (10, 2, 4, 4)).astype(np.float32)
    y = rng.integers(0, 5, 10)
    np.save(os.path.join(out, "x.npy"), x)
    np.save(os.path.join(out, "y.npy"), y)
    logits = forward(w, x.astype(np.float64))
    shifted = logits - logits.max(1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
    rank = (logits > logits[np.arange(10), y][:, None]).sum(1)
    json.dump({"loss": float(-logp[np.arange(10), y].mean()),
               "top1": float((rank < 1).mean()),
               "top5": float((rank < 5).mean())},
              open(os.path.join(out, "expected.json"), "w"))


def check(out, metrics, exported):
    want = json.load(open(os.path.join(out, "expected.json")))
    got = json.load(open(metrics))["eval"][-1]
    ok = abs(got["loss"] - want["loss"]) / want["loss"] < 1e-5 and \
        got["top1"] == want["top1"] and got["top5"] == want["top5"] and \
        got["samples"] == 10
    print("%s: evaluation loss %.6f top1 %.2f, numpy %.6f top1 %.2f" % (
        "ok" if ok else "DIFFERENT", got["loss"], got["top1"], want["loss"],
        want["top1"]))
    m = onnx.load(exported)
    onnx.checker.check_model(m)
    original = {t.name: numpy_helper.to_array(t) for t in
                onnx.load(os.path.join(out, "model.onnx")).graph.initializer}
    back = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    same = sorted(original) == sorted(back) and all(
        original[k].shape == back[k].shape and
        np.array_equal(original[k], back[k]) for k in original)
    print("%s: %d exported tensors %s the ones read" % (
        "ok" if same else "DIFFERENT", len(back),
        "equal" if same else "differ from"))
    sys.exit(0 if ok and same else 1)


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        check(*sys.argv[2:5])
