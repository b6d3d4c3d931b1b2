#!/usr/bin/python3
"""How fast the runtime reads training data, and whether steps wait for it.

1. The readers alone (tools/hdrt-data-bench): an ImageFolder of photo-like
   500x375 JPEG files decoded, resized and center-cropped to 3x224x224, the
   same as PNG files, the same images stored decoded in a uint8 .npy array,
   and Fashion-MNIST's IDX files, on 1 and 2 threads.
2. A zoo model's training reading the JPEG folder: AlexNet at batch 16 on
   2 processes, with a shuffle, random crops and flips; the metrics' input
   wait is the time its steps waited for their batch.
3. The rate ResNet-50 consumes on one H200 by hd's cost model, against the
   JPEG reader's rate per thread.
Writes the section "data-loading" of docs/results.md.

usage: bench/data_bench.py [build-dir]
"""
import json
import os
import platform
import sys
import tempfile

import numpy as np
from PIL import Image

from hdbench import (ROOT, compile_program, import_onnx, run, run_program,
                     search, tool, write_section, zoo_model)

BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
IMAGES, CLASSES = 512, 8
FASHION = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"


def make_images(tmp):
    """Photo-like pictures (smooth colour fields with noise, 500x375) as
    JPEG and PNG class folders, and decoded at 224x224 in a .npy array."""
    rng = np.random.default_rng(1)
    yy, xx = np.mgrid[0:375, 0:500] / 500.0
    array = np.zeros((IMAGES, 3, 224, 224), np.uint8)
    for i in range(IMAGES):
        phase = rng.uniform(0, 6.3, 3)
        rgb = np.stack([np.sin(6 * xx + 4 * yy * k + phase[k])
                        for k in range(3)], -1) * 90 + 128 + \
            rng.normal(0, 12, (375, 500, 3))
        img = Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8))
        for kind in ("jpeg", "png"):
            folder = os.path.join(tmp, kind, "class%d" % (i % CLASSES))
            os.makedirs(folder, exist_ok=True)
            if kind == "jpeg":
                img.save(os.path.join(folder, "%04d.jpg" % i), quality=90)
            elif i < IMAGES // 4:  # PNGs are slow to write; fewer suffice
                img.save(os.path.join(folder, "%04d.png" % i))
        array[i] = np.asarray(img.resize((299, 224)))[:, 37:261].transpose(2, 0, 1)
    np.save(os.path.join(tmp, "x.npy"), array)
    np.save(os.path.join(tmp, "y.npy"), np.arange(IMAGES) % CLASSES)


def reader(path, shape, threads, labels=None):
    cmd = [tool(BUILD, "hdrt-data-bench"), path, "--shape", shape,
           "--threads", str(threads), "--images", str(IMAGES)]
    r = json.loads(run(cmd + (["--labels", labels] if labels else [])).stdout)
    print(r["data"], threads, "%.0f images/s" % r["images_per_s"], flush=True)
    return r


def alexnet_on_jpegs(tmp):
    src = import_onnx(BUILD, zoo_model("alexnet"),
                      os.path.join(tmp, "alexnet.mlir"), 16)
    exe = compile_program(BUILD, src, os.path.join(tmp, "alexnet"), 2, "cpu")
    return run_program(exe, ["--data", os.path.join(tmp, "jpeg"), "--steps",
                             "5", "--shuffle", "--augment", "flip,crop=16",
                             "--mean", "0.485,0.456,0.406",
                             "--std", "0.229,0.224,0.225", "--quiet"],
                       os.path.join(tmp, "a.json"), 2, timeout=1800)


def resnet50_per_h200(tmp):
    src = import_onnx(BUILD, zoo_model("resnet50"),
                      os.path.join(tmp, "r.mlir"), 256)
    report = search(BUILD, src, os.path.join(tmp, "r.json"), 8, "h200-node",
                    "data")
    return report["images_per_s"] / 8


def main():
    tmp = tempfile.mkdtemp(prefix="hd-data-bench-")
    make_images(tmp)
    rows = []
    for threads in (1, 2):
        rows.append(("JPEG folder, 500x375 to 3x224x224",
                     reader(os.path.join(tmp, "jpeg"), "3,224,224", threads)))
        rows.append(("PNG folder, 500x375 to 3x224x224",
                     reader(os.path.join(tmp, "png"), "3,224,224", threads)))
        rows.append((".npy, uint8 3x224x224",
                     reader(os.path.join(tmp, "x.npy"), "3,224,224", threads,
                            os.path.join(tmp, "y.npy"))))
        rows.append(("IDX .gz, Fashion-MNIST 28x28",
                     reader(FASHION, "1,28,28", threads)))
    rows.sort(key=lambda r: r[0])
    alexnet = alexnet_on_jpegs(tmp)
    need = resnet50_per_h200(tmp)
    jpeg = [r for n, r in rows if n.startswith("JPEG") and r["threads"] == 1][0]
    threads = int(np.ceil(need / jpeg["images_per_s"]))

    out = ["## Data loading",
           "",
           "Command: `bench/data_bench.py` (writes this section). Machine: %s, "
           "%d cores, %s. Readers alone: `hdrt-data-bench`, whole images on "
           "1 and 2 threads, as the runtime's background reader reads a "
           "batch with `--data-threads`." % (
               platform.processor() or platform.machine(), os.cpu_count(),
               platform.platform()),
           "",
           "| data | threads | images/s |",
           "|---|---|---|"]
    for name, r in rows:
        out.append("| %s | %d | %.0f |" % (name, r["threads"],
                                           r["images_per_s"]))
    out += ["",
            "Training AlexNet (batch 16, 2 processes, layer-wise strategy) on "
            "the JPEG folder with a shuffle, random crops and flips: %.0f "
            "ms per step, of which %.2f ms waiting for the batch, which the "
            "background reader prepared during the previous step." % (
                alexnet["mean_step_ms"], alexnet["input_ms"]),
            "",
            "hd's cost model predicts that ResNet-50 trains at %.0f images/s "
            "on one H200 (`h200-node`, data parallel, 32 per GPU). A rank "
            "reading JPEG files at %.0f images/s per thread keeps such a GPU "
            "fed with %d reading thread%s (`--data-threads`; mpirun "
            "must give the rank that many cores, e.g. `--map-by "
            "socket:PE=4`, as it binds a process to one core by default); "
            "data stored decoded (.npy, IDX, raw) needs fewer." % (
                need, jpeg["images_per_s"], threads, "s" if threads > 1 else "")]
    write_section("data-loading", out)


if __name__ == "__main__":
    main()
