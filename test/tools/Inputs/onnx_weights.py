"""Models for test/tools/hdrt-onnx-weights.test, and its oracle: Python's
onnx module (python3-onnx). Run with Debian's python3.

  onnx_weights.py make OUT                 a model with FLOAT initializers
                                           (raw_data, float_data), an
                                           INT64 one and weights that are
                                           only inputs, and everything else
                                           an export must keep
  onnx_weights.py make-bad KIND OUT        a model the reader must refuse:
                                           external, raw-size
  onnx_weights.py check ORIGINAL WRITTEN   onnx.checker on WRITTEN, each
                                           new or changed initializer the
                                           tool's ramp (with its other
                                           fields kept), and the rest of
                                           the model equal to ORIGINAL
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper as h, numpy_helper


def ramp(dims):
    """What hdrt-onnx-weights writes: value k is (k % 16) / 8 - 1."""
    n = int(np.prod(dims, dtype=np.int64))
    return ((np.arange(n) % 16) / 8.0 - 1).astype(np.float32).reshape(dims)


def make():
    w = numpy_helper.from_array(
        np.linspace(-1, 1, 4 * 3 * 3 * 3, dtype=np.float32).reshape(
            4, 3, 3, 3), "w")
    b = h.make_tensor("b", TensorProto.FLOAT, [4], [0.5, -0.5, 1.0, -1.0])
    b.doc_string = "the conv's bias, in float_data"
    shape = numpy_helper.from_array(np.array([0, -1], dtype=np.int64), "shape")
    inputs = [h.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["batch", 3, 6, 6]),
              h.make_tensor_value_info("wf", TensorProto.FLOAT, [5, 64]),
              h.make_tensor_value_info("bf", TensorProto.FLOAT, [5])]
    nodes = [
        h.make_node("Conv", ["x", "w", "b"], ["c"], name="conv",
                    kernel_shape=[3, 3], pads=[0, 0, 0, 0]),
        h.make_node("Relu", ["c"], ["r"], name="relu"),
        h.make_node("Reshape", ["r", "shape"], ["f"], name="flatten"),
        h.make_node("Gemm", ["f", "wf", "bf"], ["y"], name="fc", transB=1),
    ]
    graph = h.make_graph(
        nodes, "weights", inputs,
        [h.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 5])],
        initializer=[w, b, shape], doc_string="a graph to export")
    model = h.make_model(graph, producer_name="onnx_weights.py",
                         doc_string="a model for hdrt-onnx-weights",
                         opset_imports=[h.make_opsetid("", 13),
                                        h.make_opsetid("ai.onnx.ml", 3)])
    h.set_model_props(model, {"trained": "no"})
    onnx.checker.check_model(model)
    return model


def make_bad(kind):
    model = make()
    w = model.graph.initializer[0]
    if kind == "external":
        w.ClearField("raw_data")
        w.data_location = TensorProto.EXTERNAL
        entry = w.external_data.add()
        entry.key, entry.value = "location", "w.bin"
    elif kind == "raw-size":
        w.raw_data = w.raw_data[:-4]
    else:
        sys.exit("unknown kind " + kind)
    return model


def without_data(tensor):
    t = TensorProto()
    t.CopyFrom(tensor)
    for field in ("dims", "data_type", "raw_data", "float_data"):
        t.ClearField(field)
    return t.SerializeToString()


def check(original_path, written_path):
    original = onnx.load(original_path)
    written = onnx.load(written_path)
    onnx.checker.check_model(written)
    before = {t.name: t for t in original.graph.initializer}
    # The written initializers, with each one that the tool wrote put back
    # as it was (or dropped when it is new), must give the original model.
    restored = []
    for t in written.graph.initializer:
        old = before.get(t.name)
        if old is None or t.SerializeToString() != old.SerializeToString():
            got = numpy_helper.to_array(t)
            want = ramp(list(t.dims))
            if got.dtype != np.float32 or not np.array_equal(got, want):
                sys.exit("%s: %s is not the ramp" % (written_path, t.name))
            if old is not None and without_data(t) != without_data(old):
                sys.exit("%s: %s lost fields other than its data" %
                         (written_path, t.name))
            print("weight %s %s %s" % (
                t.name, list(t.dims), "added" if old is None else "replaced"))
        if t.name in before:
            restored.append(before[t.name])
    del written.graph.initializer[:]
    written.graph.initializer.extend(restored)
    if written.SerializeToString() != original.SerializeToString():
        sys.exit("%s: the model around the weights changed" % written_path)
    print("checked: onnx.checker passes, the rest of the model is the original")


if __name__ == "__main__":
    if sys.argv[1] == "make":
        onnx.save(make(), sys.argv[2])
    elif sys.argv[1] == "make-bad":
        onnx.save(make_bad(sys.argv[2]), sys.argv[3])
    elif sys.argv[1] == "check":
        check(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
