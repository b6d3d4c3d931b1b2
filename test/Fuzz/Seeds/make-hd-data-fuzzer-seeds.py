#!/usr/bin/python3
"""Writes the hd-data-fuzzer seeds into hd-data-fuzzer/ beside this script:
small valid inputs of each format the fuzzer reads (its input layout is in
tools/hd-fuzzers/DataReadersFuzzer.cpp). Deterministic: rerunning it
rewrites the same bytes."""
import gzip
import os
import random
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hd-data-fuzzer")
rng = random.Random(1)


def gz(data):
    return gzip.compress(data, mtime=0)


def idx_images(n, h, w):
    return struct.pack(">IIII", 0x803, n, h, w) + bytes(
        rng.randrange(256) for _ in range(n * h * w))


def idx_labels(labels):
    return struct.pack(">II", 0x801, len(labels)) + bytes(labels)


def npy(descr, shape, data, major=1):
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    text = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, dims)
    pre = 10 if major == 1 else 12
    text += " " * ((-(pre + len(text) + 1)) % 64) + "\n"
    length = struct.pack("<H" if major == 1 else "<I", len(text))
    return b"\x93NUMPY" + bytes([major, 0]) + length + text.encode() + data


def floats(n):
    return struct.pack("<%df" % n, *(rng.uniform(-2, 2) for _ in range(n)))


def raw(labels, c):
    return b"".join(struct.pack("<i", l) + floats(c * 16) for l in labels)


def with_labels(head, labels, images):
    """The fuzzer's input: format byte, labels length, labels, images."""
    return bytes([head]) + struct.pack("<H", len(labels)) + labels + images


SEEDS = {
    "idx-plain": with_labels(0, idx_labels([3, 1]), idx_images(2, 4, 4)),
    "idx-gzip": with_labels(0, gz(idx_labels([0, 9, 2])),
                            gz(idx_images(3, 4, 4))),
    "npy-u8-nchw": with_labels(
        1, npy("<i8", [2], struct.pack("<2q", 5, 0)),
        npy("|u1", [2, 1, 4, 4], bytes(rng.randrange(256) for _ in range(32)))),
    "npy-f32-nhwc": with_labels(
        1 | 4, npy("|u1", [2], bytes([1, 2])),
        npy("<f4", [2, 4, 4, 3], floats(96), major=2)),
    "npy-u8-nhw": with_labels(
        1, npy("<u2", [1], struct.pack("<H", 7), major=3),
        npy("|u1", [1, 4, 4], bytes(range(16)))),
    "raw-1x4x4": bytes([2]) + raw([0, 4], 1),
    "raw-3x4x4-gzip": bytes([2 | 4]) + gz(raw([1], 3)),
}

os.makedirs(OUT, exist_ok=True)
for name, data in SEEDS.items():
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
