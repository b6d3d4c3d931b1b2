#!/usr/bin/env python3
"""Runs a command that must fail: prints its output and "exit status N after
T s", and succeeds only when the status is non-zero and the command ended by
itself within the time limit (a hang is a failure).

  expect_failure.py [--env NAME=VALUE]... [--timeout S] -- command...
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
    p.add_argument("command", nargs=argparse.REMAINDER)
    args = p.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
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
    return 0 if r.returncode != 0 else 1


if __name__ == "__main__":
    sys.exit(main())
