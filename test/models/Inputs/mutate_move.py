"""Changes one move of a transferred module: `shrink` takes the last index
of its box's first dimension away (an element that never arrives), `source`
names the next device as its sender (elements from a device that does not
hold them). The first move whose box is more than one index deep is the one.

  mutate_move.py shrink|source IN OUT
"""
import re
import sys

kind, src_path, out_path = sys.argv[1:4]
text = open(src_path).read()
pattern = re.compile(r"#hd\.move<src = (\d+), dst = (\d+), "
                     r"lo = \[(\d+)([^\]]*)\], hi = \[(\d+)([^\]]*)\]>")
for m in pattern.finditer(text):
    src, dst, lo0, lo_rest, hi0, hi_rest = m.groups()
    if int(hi0) - int(lo0) < 2:
        continue
    if kind == "shrink":
        hi0 = str(int(hi0) - 1)
    else:
        src = str(int(src) + 1 if int(src) + 1 != int(dst) else int(src) + 2)
    changed = (f"#hd.move<src = {src}, dst = {dst}, lo = [{lo0}{lo_rest}], "
               f"hi = [{hi0}{hi_rest}]>")
    print(f"{m.group(0)} -> {changed}")
    open(out_path, "w").write(text[:m.start()] + changed + text[m.end():])
    sys.exit(0)
sys.exit("no move to mutate")
