"""Reading hd's checkpoints and comparing them: what the comparison scripts
(parallel_equals_serial.py, compare_runs.py) share."""
import struct


def read_checkpoint(path):
    """Tensors of an HDCKPT1 file: {name: (floats, shape)}."""
    with open(path, "rb") as f:
        data = f.read()
    header, _, payload = data.partition(b"data\n")
    lines = header.decode().splitlines()
    assert lines[0] == "HDCKPT1", lines[0]
    count = int(next(l for l in lines if l.startswith("tensors ")).split()[1])
    specs = lines[-count:]
    tensors, offset = {}, 0
    for spec in specs:
        fields = spec.split()
        shape = tuple(int(d) for d in fields[2:])
        size = 1
        for d in shape:
            size *= d
        tensors[fields[0]] = (struct.unpack_from("<%df" % size, payload,
                                                 offset), shape)
        offset += 4 * size
    return tensors


# Below this, a tensor is rounding noise around an exact zero, and its error
# is measured against this scale rather than its own: the shift of a batch
# norm whose output feeds another batch norm through a convolution gets a
# gradient that is zero in exact arithmetic (the second norm removes any
# shift), and so does the running mean of that second norm (ShuffleNet's
# branches): values near 1e-9 whose rounding differs with the split.
NOISE_FLOOR = 1e-4


def relative(a, b):
    """The largest difference of two (values, shape) tensors over the
    larger magnitude of `b`; infinite where their shapes differ."""
    (x, xs), (y, ys) = a, b
    if xs != ys or len(x) != len(y):
        return float("inf")
    scale = max(max((abs(v) for v in y), default=0.0), NOISE_FLOOR)
    return max((abs(u - v) for u, v in zip(x, y)), default=0.0) / scale


def tensor_errors(got, want):
    """The largest relative error of the parameters and of the optimizer
    state (momentum) between two checkpoints; infinite where they hold
    other tensors."""
    if set(got) != set(want):
        return float("inf"), float("inf")
    params = [relative(got[k], want[k]) for k in want
              if not k.endswith(".momentum")]
    state = [relative(got[k], want[k]) for k in want
             if k.endswith(".momentum")]
    return max(params, default=0.0), max(state, default=0.0)
