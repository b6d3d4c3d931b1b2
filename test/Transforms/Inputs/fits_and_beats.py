"""Prints whether a layer-wise report's strategy fits its devices, and how
it compares with each baseline report: a baseline that fits must not be
faster.

  fits_and_beats.py LAYERWISE BASELINE...
"""
import json
import sys

lw, *baselines = [json.load(open(p)) for p in sys.argv[1:]]
print(f"layerwise fits: {'yes' if lw['fits'] else 'no'} "
      f"({lw['peak_mem_bytes']} of {lw['capacity_bytes']} bytes)")
t = lw["predicted_ms"]
for b in baselines:
    if not b["fits"]:
        print(f"{b['strategy']} does not fit")
        continue
    ok = t <= b["predicted_ms"] * (1 + 1e-12)
    print(f"layerwise {'<=' if ok else '>'} {b['strategy']} "
          f"({t:.1f} and {b['predicted_ms']:.1f} ms)")
