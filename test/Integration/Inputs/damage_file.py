#!/usr/bin/env python3
"""Damages a file in place: flips every bit of the byte at OFFSET (negative:
from the end), or truncates it to SIZE bytes.

  damage_file.py FILE --flip OFFSET | --truncate SIZE
"""
import argparse

p = argparse.ArgumentParser()
p.add_argument("file")
g = p.add_mutually_exclusive_group(required=True)
g.add_argument("--flip", type=int)
g.add_argument("--truncate", type=int)
a = p.parse_args()
data = bytearray(open(a.file, "rb").read())
if a.flip is not None:
    data[a.flip] ^= 0xFF
else:
    data = data[:a.truncate]
open(a.file, "wb").write(bytes(data))
