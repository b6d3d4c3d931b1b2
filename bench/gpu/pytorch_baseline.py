#!/usr/bin/env python3
"""PyTorch eager on one GPU: the baseline of hd's CUDA backend.

torchvision's AlexNet, VGG-16, ResNet-50 and Inception-v3 (no auxiliary
head, 299x299) at batch 32, 64 and 128: fp32, channels-first, SGD with
momentum 0.9 and weight decay 5e-4, cross-entropy on synthetic data already
on the GPU, PyTorch's default math (TF32 in cuDNN convolutions, not in
matmuls) and cuDNN's autotuner on (torch.backends.cudnn.benchmark: hd
times its convolution algorithms too), the same as hd's defaults. Images/s
is the batch over the median step time after warm-up, each step ended by a
synchronize.

usage: pytorch_baseline.py --out results.json [--steps N]
"""
import argparse
import json
import statistics
import time

import torch
import torchvision

MODELS = {
    "alexnet": (lambda: torchvision.models.alexnet(), 224),
    "vgg16": (lambda: torchvision.models.vgg16(), 224),
    "resnet50": (lambda: torchvision.models.resnet50(), 224),
    "inception_v3": (lambda: torchvision.models.inception_v3(
        aux_logits=False, init_weights=False), 299),
}
BATCHES = [32, 64, 128]
WARMUP = 5


def measure(name, batch, steps):
    make, size = MODELS[name]
    model = make().cuda().train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9,
                          weight_decay=5e-4)
    loss_fn = torch.nn.CrossEntropyLoss()
    x = torch.randn(batch, 3, size, size, device="cuda")
    y = torch.randint(0, 1000, (batch,), device="cuda")
    times = []
    for step in range(WARMUP + steps):
        torch.cuda.synchronize()
        t = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        if step >= WARMUP:
            times.append(time.perf_counter() - t)
    del model, opt
    torch.cuda.empty_cache()
    return batch / statistics.median(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--steps", type=int, default=25)
    args = p.parse_args()
    torch.backends.cudnn.benchmark = True
    results = {"torch": torch.__version__, "device": torch.cuda.get_device_name(),
               "cudnn": torch.backends.cudnn.version(), "images_per_s": {}}
    for name in MODELS:
        for batch in BATCHES:
            ips = measure(name, batch, args.steps)
            results["images_per_s"]["%s-%d" % (name, batch)] = ips
            print("%s batch %d: %.1f images/s" % (name, batch, ips), flush=True)
            with open(args.out, "w") as f:  # partial results survive a timeout
                json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
