"""Reading hd's checkpoints and comparing them: what the comparison scripts
(parallel_equals_serial.py, compare_runs.py) share. numpy, not Python
floats: VGG-16's checkpoint holds 276 million values."""
import numpy as np


def read_checkpoint(path):
    """Tensors of an HDCKPT1 file, mapped rather than read: {name: (float32
    array, shape)}."""
    head = b""
    with open(path, "rb") as f:
        while b"data\n" not in head:
            chunk = f.read(1 << 20)
            assert chunk, "no data marker in " + path
            head += chunk
    header, marker, _ = head.partition(b"data\n")
    lines = header.decode().splitlines()
    assert lines[0] == "HDCKPT1", lines[0]
    count = int(next(l for l in lines if l.startswith("tensors ")).split()[1])
    tensors, offset = {}, len(header) + len(marker)
    for spec in lines[-count:]:
        fields = spec.split()
        shape = tuple(int(d) for d in fields[2:])
        size = int(np.prod(shape, dtype=np.int64))
        tensors[fields[0]] = (np.memmap(path, "<f4", "r", offset, (size,))
                              if size else np.zeros(0, np.float32), shape)
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
    if len(y) == 0:
        return 0.0
    # float32 differences of nearby values are exact.
    scale = max(float(np.max(np.abs(y))), NOISE_FLOOR)
    return float(np.max(np.abs(x - y))) / scale


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
