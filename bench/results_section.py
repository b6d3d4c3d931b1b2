#!/usr/bin/python3
"""Replaces one named section of docs/results.md, keeping the others.

Each bench driver owns the text between `<!-- begin NAME -->` and
`<!-- end NAME -->`, so drivers can rerun independently.
usage: results_section.py RESULTS.md NAME < section.md
"""
import re
import sys

path, name = sys.argv[1], sys.argv[2]
body = sys.stdin.read().rstrip() + "\n"
begin, end = f"<!-- begin {name} -->", f"<!-- end {name} -->"
try:
    text = open(path).read()
except FileNotFoundError:
    text = "# hd results\n\nEach section is written by a driver in bench/, with the command and machine.\n"
block = f"{begin}\n{body}{end}"
pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
text = pattern.sub(lambda _: block, text) if pattern.search(text) else text.rstrip() + "\n\n" + block + "\n"
open(path, "w").write(text)
