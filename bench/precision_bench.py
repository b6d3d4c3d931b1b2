#!/usr/bin/python3
"""The paper's table in today's precisions, predicted: AlexNet, VGG-16 and
Inception-v3 on 16 P100s (p100-cluster) in fp32 and fp16; ResNet-50 and
Inception-v3 on 8 H200s (h200-node) and on 64 (8 such nodes) in fp32 and
bf16. 32 images per device, each strategy's predicted images/s, and the
layer-wise speedup over the best single strategy in each precision. Writes
the section "precision" of docs/results.md.

usage: bench/precision_bench.py [build-dir]
"""
import os
import sys
import tempfile

from hdbench import (ROOT, host, import_onnx, machine_file, search,
                     write_section, zoo_model)

BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
BASELINES = ["data", "model", "owt"]
PER_DEVICE = 32


def main():
    out = ["Predicted by the cost model (no run): each strategy's images/s at "
           f"{PER_DEVICE} images per device, in fp32 and in the machine's "
           "low precision (convolutions and matrix products in it, "
           "normalization statistics and the loss in fp32, activations, "
           "their gradients and transfers in it, gradients summed in fp32). "
           "Speedup: layer-wise over the best of data, model and OWT in the "
           "same precision.", "",
           f"Command: `bench/precision_bench.py` on {host()}.", ""]
    with tempfile.TemporaryDirectory() as tmp:
        h200x8 = machine_file(tmp, "h200-node", name="h200-8-nodes", nodes=8)
        setups = [("16 x P100 (`p100-cluster`)", "p100-cluster", 16, "fp16",
                   ["alexnet", "vgg16", "inception_v3"]),
                  ("8 x H200 (`h200-node`)", "h200-node", 8, "bf16",
                   ["resnet50", "inception_v3"]),
                  ("64 x H200 (8 `h200-node`s, 400 Gb/s between nodes)",
                   h200x8, 64, "bf16", ["resnet50", "inception_v3"])]
        for title, machine, devices, low, models in setups:
            out += [f"### {title}", "",
                    "| model | precision | data | model | owt | layer-wise "
                    "| speedup | layer-wise ms | GB moved |",
                    "|---|---|---|---|---|---|---|---|---|"]
            for model in models:
                mlir = import_onnx(BUILD, zoo_model(model),
                                   os.path.join(tmp, model + ".mlir"),
                                   PER_DEVICE * devices)
                steps = {}
                for precision in ["fp32", low]:
                    r = {s: search(BUILD, mlir, os.path.join(tmp, "r.json"),
                                   devices, machine, s, precision=precision)
                         for s in BASELINES + ["layerwise"]}
                    best = max(r[s]["images_per_s"] for s in BASELINES)
                    lw = r["layerwise"]
                    steps[precision] = lw["predicted_ms"]
                    cells = " | ".join(f"{r[s]['images_per_s']:.0f}"
                                       for s in BASELINES + ["layerwise"])
                    out.append(
                        f"| {model} | {precision} | {cells} | "
                        f"{lw['images_per_s'] / best:.2f}x | "
                        f"{lw['predicted_ms']:.2f} | "
                        f"{lw['comm_bytes'] * 1e-9:.3f} |")
                out.append(f"| {model} | {low} / fp32 step | | | | | | "
                           f"{steps[low] / steps['fp32']:.2f} | |")
            out.append("")
    return write_section("precision", out)


if __name__ == "__main__":
    sys.exit(main())
