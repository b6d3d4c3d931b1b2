"""Prints the options `hd-opt --help` lists under one pass or pipeline, one
per line as `--name=<type>` (sorted), without their descriptions.

  usage: hd-opt --help | pass_options.py FLAG
"""
import re
import sys

flag = sys.argv[1]
lines = sys.stdin.read().splitlines()
options, inside, indent = [], False, 0
for line in lines:
    m = re.match(r"^(\s*)(--[^\s=]+(?:=<[^>]*>)?)", line)
    if not m:
        continue
    depth, option = len(m.group(1)), m.group(2)
    if inside:
        if depth <= indent:
            break
        options.append(option)
    elif option == "--" + flag:
        inside, indent = True, depth
if not options:
    sys.exit(f"no options listed under --{flag}")
print("\n".join(sorted(options)))
