#!/usr/bin/env python3
"""Kills the checkpoint writer at many points of a write and checks each
time that the previous checkpoint is still there, byte for byte, and that a
run resumes from it.

  interrupted_checkpoint.py --prog EXE --np N --work DIR

The points: before the first byte, inside the header, at its end, inside
the data, near its end, and after the fsync just before the rename
(HDRT_TEST_CHECKPOINT_CRASH, the runtime's test hook).
"""
import argparse
import os
import re
import subprocess
import sys


def mpirun(args, np, extra_env=None):
    env = dict(os.environ)
    env.update(extra_env or {})
    return subprocess.run(["mpirun", "-np", str(np)] + args, env=env,
                          capture_output=True, text=True, timeout=120)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--prog", required=True)
    p.add_argument("--np", type=int, default=2)
    p.add_argument("--work", required=True)
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    ck = os.path.join(a.work, "ck")
    path = os.path.join(ck, "checkpoint.hd")
    base = mpirun([a.prog, "--steps", "2", "--quiet", "--checkpoint", ck], a.np)
    if base.returncode != 0:
        print("FAIL: the first run failed:\n" + base.stdout + base.stderr)
        return 1
    good = open(path, "rb").read()
    header = good.index(b"\ndata\n") + len(b"\ndata\n")
    # The new checkpoint's size may differ from the old one's by a byte or
    # two (its checksum is printed in decimal), hence "near the end".
    points = [("at the start", 0), ("inside the header", header // 2),
              ("after the header", header),
              ("inside the data", (header + len(good)) // 2),
              ("near the end", len(good) - 16),
              ("before the rename", 1 << 40)]
    failures = 0
    for label, n in points:
        r = mpirun([a.prog, "--steps", "3", "--quiet", "--checkpoint", ck,
                    "--resume"], a.np, {"HDRT_TEST_CHECKPOINT_CRASH": str(n)})
        killed = re.search(r"checkpoint writer killed after (\d+) bytes",
                           r.stderr)
        intact = open(path, "rb").read() == good
        print("killed %s (%s bytes written): exit %d, previous checkpoint %s"
              % (label, killed.group(1) if killed else "NOT KILLED, no",
                 r.returncode, "intact" if intact else "CHANGED"))
        if r.returncode == 0 or not killed or not intact:
            failures += 1
            sys.stdout.write(r.stdout + r.stderr)
    # A leftover temporary file does not stop the next write, and the run
    # resumes from the checkpoint the crashes left.
    r = mpirun([a.prog, "--steps", "3", "--checkpoint", ck, "--resume"], a.np)
    sys.stdout.write(r.stdout)
    if r.returncode != 0 or open(path, "rb").read() == good:
        print("FAIL: the resumed run did not write a new checkpoint")
        sys.stdout.write(r.stderr)
        failures += 1
    print("PASS" if failures == 0 else "FAIL: %d points" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
