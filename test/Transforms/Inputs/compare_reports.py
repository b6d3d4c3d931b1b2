"""Prints how the layer-wise reports' predicted times compare with the
exhaustive search (2 devices) and the baselines (4 devices)."""
import json
import sys

# usage: LAYERWISE2 EXHAUSTIVE2 LAYERWISE4 BASELINE4...
lw2, ex2, lw, *baselines = [json.load(open(p)) for p in sys.argv[1:]]
t2 = lw2["predicted_ms"]
print("layerwise == exhaustive" if abs(t2 - ex2["predicted_ms"]) <= 1e-9 * max(1, t2)
      else f"layerwise {t2} != exhaustive {ex2['predicted_ms']}")
t = lw["predicted_ms"]
for b in baselines:
    ok = t <= b["predicted_ms"] * (1 + 1e-12)
    print(f"layerwise {'<=' if ok else '>'} {b['strategy']}")
