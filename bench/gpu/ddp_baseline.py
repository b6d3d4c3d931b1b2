#!/usr/bin/env python3
"""PyTorch DDP on the GPUs of one node: the multi-GPU baseline.

torchvision's ResNet-50 at 32 images per GPU, fp32, SGD with momentum 0.9
and weight decay 5e-4, synthetic data already on each GPU, cuDNN's
autotuner on (as hd times its convolution algorithms). Images/s is the
global batch over the median step after warm-up, each step ended by a
synchronize. Run under torchrun; rank 0 writes the result.

usage: torchrun --standalone --nproc_per_node N ddp_baseline.py --out r.json
"""
import argparse
import json
import os
import statistics
import time

import torch
import torch.distributed as dist
import torchvision

WARMUP = 5
PER_GPU = 32


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--steps", type=int, default=25)
    args = p.parse_args()
    dist.init_process_group("nccl")
    local = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    torch.backends.cudnn.benchmark = True
    model = torch.nn.parallel.DistributedDataParallel(
        torchvision.models.resnet50().cuda().train(), device_ids=[local])
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9,
                          weight_decay=5e-4)
    loss_fn = torch.nn.CrossEntropyLoss()
    x = torch.randn(PER_GPU, 3, 224, 224, device="cuda")
    y = torch.randint(0, 1000, (PER_GPU,), device="cuda")
    times = []
    for step in range(WARMUP + args.steps):
        torch.cuda.synchronize()
        t = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss_fn(model(x), y).backward()
        opt.step()
        torch.cuda.synchronize()
        if step >= WARMUP:
            times.append(time.perf_counter() - t)
    gpus = dist.get_world_size()
    if dist.get_rank() == 0:
        ips = PER_GPU * gpus / statistics.median(times)
        print("resnet50 ddp %d GPUs, %d per GPU: %.1f images/s" % (
            gpus, PER_GPU, ips), flush=True)
        with open(args.out, "w") as f:
            json.dump({"torch": torch.__version__, "gpus": gpus,
                       "per_gpu": PER_GPU, "images_per_s": ips}, f, indent=2)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
