#!/usr/bin/env python3
"""Runs a command that must fail with one of hd's own error statuses:
prints its output and "exit status N after T s", and succeeds only when the
command ended by itself within the time limit (a hang is a failure) with a
status of `--status` (default 1 and 2: a tool's error, a rank's error that
MPI_Abort spreads, an error every rank reports). A signal (a crash, or a
sanitizer report, which aborts) fails, directly or through mpirun (128 + the
signal), as does any other status.

  expect_failure.py [--env NAME=VALUE]... [--timeout S] [--status N,M] \\
      -- command...

Comparison scripts exit with 3 where the results differ, so that their
negative controls tell "different" from "broken" (--status 3).
"""
import argparse
import os
import subprocess
import sys
import time


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--timeout", type=float, default=60)
    p.add_argument("--env", action="append", default=[])
    p.add_argument("--status", default="1,2")
    p.add_argument("command", nargs=argparse.REMAINDER)
    args = p.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    accepted = {int(s) for s in args.status.split(",")}
    env = dict(os.environ)
    for item in args.env:
        name, value = item.split("=", 1)
        env[name] = value
    start = time.time()
    try:
        r = subprocess.run(command, capture_output=True, text=True, env=env,
                           timeout=args.timeout)
    except subprocess.TimeoutExpired:
        print("HANG: still running after %.0f s" % args.timeout)
        return 1
    sys.stdout.write(r.stdout + r.stderr)
    print("exit status %d after %.1f s" % (r.returncode, time.time() - start))
    if r.returncode in accepted:
        return 0
    print("UNEXPECTED: exit status %d, not %s" % (
        r.returncode, " or ".join(str(s) for s in sorted(accepted))))
    return 1


if __name__ == "__main__":
    sys.exit(main())
