"""PyTorch's side of hd's training tests: what a compiled program must
reproduce, computed independently.

  hd_reference.py make OUT --steps K --batch N [--train-samples S]
      [--eval-samples E] [--seed 3] [--lr X] [--momentum X]
      [--weight-decay X] [--nesterov] [--schedule constant|step|cosine]
      [--warmup K] [--shuffle] [--flip] [--crop P] [--mean M --std S]
      [--image-folder] [--threads T] [--channel-operands]
    writes OUT/init.onnx (the model with PyTorch's initial weights),
    OUT/train-x.npy, OUT/train-y.npy, OUT/eval-x.npy, OUT/eval-y.npy
    (uint8 Fashion-MNIST images and int64 labels; with --image-folder, the
    training images as OUT/train/<class>/<n>.png and .jpg files instead,
    which the reference reads with torchvision's ImageFolder; with
    --channel-operands, the model normalizes the images itself and scales
    and shifts channels by [C, 1, 1] buffers and parameters), and
    OUT/reference.json:
    PyTorch's per-step losses, its evaluation after the last step and its
    trained weights.
  hd_reference.py compare OUT METRICS [--onnx EXPORTED] [--top1-within P]
    compares hd's --metrics (and --export-onnx model) with it; prints one
    line per check and exits 1 on a difference. With --top1-within, a run
    too long to follow PyTorch step by step (rounding differences grow) is
    held to PyTorch's top-1 within P instead.
  hd_reference.py same-eval METRICS METRICS
    two hd runs' last evaluations agree (loss to a relative 1e-5, top-1 and
    top-5 exactly).

The batches follow hd's documented data order and augmentation (the
per-epoch permutation and the crops and flips drawn from hd's counter-based
generator, reimplemented here from its definition in hdrt/Random.h and
runtime/exec/InputSource.h); the model, loss, optimizer, schedules and
batch norm are PyTorch's own.
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "models"))
from lenet import (LeNet, export, fashion_mnist, load_weights,  # noqa: E402
                   onnx_weights)

# The exit status where hd and PyTorch differ (expect_failure.py): not 1,
# which an exception (a tool that failed, a missing file) gives.
DIFFERENT = 3

MASK = (1 << 64) - 1


# hd's counter-based generator (hdrt/Random.h) and streams (exec/Program.h).
def mix64(z):
    z &= MASK
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & MASK
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & MASK
    return z ^ (z >> 31)


def random_bits(seed, stream, index):
    return mix64(mix64((seed * 0x9e3779b97f4a7c15 + stream) & MASK) + index)


def uniform(seed, stream, index):
    return np.float32((random_bits(seed, stream, index) >> 40) *
                      (1.0 / 16777216.0))


def uniform_index(seed, stream, index, n):
    return (random_bits(seed, stream, index) * n) >> 64


def stream_of(kind, a, b=0):
    return mix64((kind << 56) ^ (a << 24) ^ b)


K_SHUFFLE, K_AUGMENT = 6, 7


class Batches:
    """Step s of a batch of N reads global positions s*N .. s*N+N-1."""

    def __init__(self, images, labels, batch, args, evaluation=False):
        self.images = images.astype(np.float32) / np.float32(255)
        self.labels = labels
        self.batch = batch
        self.args = args
        self.evaluation = evaluation
        self.orders = {}

    def order(self, epoch):
        if epoch not in self.orders:
            size = len(self.labels)
            perm = list(range(size))
            stream = stream_of(K_SHUFFLE, epoch)
            for i in range(size - 1, 0, -1):
                j = uniform_index(self.args.seed, stream, i, i + 1)
                perm[i], perm[j] = perm[j], perm[i]
            self.orders[epoch] = perm
        return self.orders[epoch]

    def sample(self, position):
        size = len(self.labels)
        if self.evaluation:
            return position if position < size else -1
        index = position % size
        return self.order(position // size)[index] if self.args.shuffle \
            else index

    def image(self, position, sample):
        x = self.images[sample]
        a = self.args
        if self.evaluation or (not a.flip and a.crop < 0):
            return x
        p = max(a.crop, 0)
        stream = stream_of(K_AUGMENT, position)
        dy = uniform_index(a.seed, stream, 0, 2 * p + 1)
        dx = uniform_index(a.seed, stream, 1, 2 * p + 1)
        flip = a.flip and uniform(a.seed, stream, 2) < np.float32(0.5)
        h, w = x.shape
        padded = np.zeros((h + 2 * p, w + 2 * p), np.float32)
        padded[p:p + h, p:p + w] = x
        out = padded[dy:dy + h, dx:dx + w]
        return out[:, ::-1] if flip else out

    def __call__(self, step):
        xs, ys = [], []
        for n in range(self.batch):
            position = step * self.batch + n
            s = self.sample(position)
            if s < 0:
                continue  # evaluation padding: counted nowhere
            x = torch.from_numpy(np.ascontiguousarray(self.image(position, s)))
            if self.args.mean is not None:
                x = (x - np.float32(self.args.mean)) / np.float32(self.args.std)
            xs.append(x[None])
            ys.append(int(self.labels[s]))
        return torch.stack(xs), torch.tensor(ys)

    def steps(self):
        return (len(self.labels) + self.batch - 1) // self.batch


def image_folder(root, images, labels):
    """Writes the images as PNG and JPEG files in class folders, and returns
    them as torchvision's ImageFolder reads them back (its order, its
    decoders)."""
    from PIL import Image
    from torchvision.datasets import ImageFolder
    for i, (x, y) in enumerate(zip(images, labels)):
        folder = os.path.join(root, f"class{y}")
        os.makedirs(folder, exist_ok=True)
        Image.fromarray(x).save(os.path.join(
            folder, f"{i:05d}.{'jpg' if i % 2 else 'png'}"))
    folder = ImageFolder(root, loader=lambda p: Image.open(p).convert("L"))
    xs = np.stack([np.asarray(folder.loader(p)) for p, _ in folder.samples])
    return xs, np.array([t for _, t in folder.samples], np.int64)


def evaluate(model, batches):
    model.eval()
    loss, top1, top5, n = 0.0, 0, 0, 0
    with torch.no_grad():
        for s in range(batches.steps()):
            x, y = batches(s)
            logits = model(x)
            loss += F.cross_entropy(logits, y, reduction="sum").item()
            rank = (logits > logits.gather(1, y[:, None])).sum(1)
            top1 += int((rank < 1).sum())
            top5 += int((rank < 5).sum())
            n += len(y)
    model.train()
    return {"loss": loss / n, "top1": top1 / n, "top5": top5 / n,
            "samples": n}


class PerChannel(nn.Module):
    """x minus a mean, over a standard deviation (buffers, which hd keeps
    with --frozen-tensors), then, when `trained`, minus an offset, times a
    gain, over a divisor, plus a shift (parameters): hd.channel_binary's
    four functions, frozen and trained, on [C, 1, 1] tensors."""

    def __init__(self, c, trained):
        super().__init__()
        g = torch.Generator().manual_seed(c)
        self.register_buffer("mean", 0.2 * torch.rand(c, 1, 1, generator=g))
        self.register_buffer("std", 0.5 + torch.rand(c, 1, 1, generator=g))
        self.trained = trained
        if trained:
            for name, base, spread in (("offset", 0, 0.1), ("gain", 1, 0.2),
                                       ("divisor", 1.5, 0.2),
                                       ("shift", 0, 0.1)):
                setattr(self, name, nn.Parameter(
                    base + spread * torch.randn(c, 1, 1, generator=g)))

    def forward(self, x):
        x = (x - self.mean) / self.std
        if self.trained:
            x = (x - self.offset) * self.gain / self.divisor + self.shift
        return x


def model_of(args):
    """LeNet; with --channel-operands, with the images normalized inside
    the model and a per-channel affine before the second ReLU."""
    model = LeNet()
    if getattr(args, "channel_operands", False):
        f = list(model.features)
        model.features = nn.Sequential(PerChannel(1, False), *f[:6],
                                       PerChannel(16, True), *f[6:])
    return model


def make(args):
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    model = model_of(args)
    export(model, os.path.join(args.out, "init.onnx"))
    train_x, train_y = fashion_mnist("train", args.train_samples)
    eval_x, eval_y = fashion_mnist("eval", args.eval_samples)
    if args.image_folder:
        train_x, train_y = image_folder(os.path.join(args.out, "train"),
                                        train_x, train_y)
    for name, a in (("train-x", train_x), ("train-y", train_y),
                    ("eval-x", eval_x), ("eval-y", eval_y)):
        np.save(os.path.join(args.out, name + ".npy"), a)
    train = Batches(train_x, train_y, args.batch, args)
    held_out = Batches(eval_x, eval_y, args.batch, args, evaluation=True)

    opt = torch.optim.SGD(model.parameters(), lr=args.lr,
                          momentum=args.momentum,
                          weight_decay=args.weight_decay,
                          nesterov=args.nesterov)
    main = None
    if args.schedule == "step":
        main = torch.optim.lr_scheduler.MultiStepLR(
            opt, [max(1, args.steps // 2), max(1, args.steps * 3 // 4)],
            gamma=0.1)
    elif args.schedule == "cosine":
        main = torch.optim.lr_scheduler.CosineAnnealingLR(
            opt, T_max=max(1, args.steps - args.warmup))
    if args.warmup:
        warm = torch.optim.lr_scheduler.LinearLR(
            opt, start_factor=1 / args.warmup, end_factor=1.0,
            total_iters=args.warmup - 1)
        sched = torch.optim.lr_scheduler.SequentialLR(
            opt, [warm, main or torch.optim.lr_scheduler.ConstantLR(
                opt, factor=1.0, total_iters=0)], milestones=[args.warmup])
    else:
        sched = main
    torch.set_num_threads(args.threads)
    losses, seconds, start = [], 0.0, time.time()
    model.train()
    for step in range(args.steps):
        x, y = train(step)
        t = time.time()
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        if sched:
            sched.step()
        losses.append(loss.item())
        seconds += time.time() - t
    state = {k: v.detach().numpy().tolist()
             for k, v in model.state_dict().items()
             if not k.endswith("num_batches_tracked")}
    with open(os.path.join(args.out, "reference.json"), "w") as f:
        json.dump({"losses": losses, "eval": evaluate(model, held_out),
                   "state": state, "args": vars(args),
                   "train_seconds": seconds,
                   "wall_seconds": time.time() - start}, f)
    print(f"reference: {args.steps} steps of {args.batch}, final loss "
          f"{losses[-1]:.6f}")


def relative(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-30))


def compare(args):
    ref = json.load(open(os.path.join(args.out, "reference.json")))
    hd = json.load(open(args.metrics))
    ok = True

    def check(good, text):
        nonlocal ok
        ok &= good
        print(("ok: " if good else "DIFFERENT: ") + text)

    pt = ref["losses"]
    ev, mine = ref["eval"], hd["eval"][-1]
    if args.top1_within is not None:
        check(len(hd["losses"]) == len(pt) and mine["samples"] ==
              ev["samples"] and abs(mine["top1"] - ev["top1"]) <=
              args.top1_within,
              f"{len(pt)} steps, then top1 {mine['top1']:.4f} on "
              f"{mine['samples']} images, PyTorch {ev['top1']:.4f}: within "
              f"{args.top1_within}")
        sys.exit(0 if ok else DIFFERENT)
    worst = max(abs(a - b) / abs(b) for a, b in zip(hd["losses"], pt))
    check(len(hd["losses"]) == len(pt) and worst < args.tolerance,
          f"{len(pt)} losses, largest relative difference {worst:.1e}")
    check(mine["samples"] == ev["samples"] and
          abs(mine["loss"] - ev["loss"]) / ev["loss"] < args.tolerance and
          mine["top1"] == ev["top1"] and mine["top5"] == ev["top5"],
          f"evaluation of {ev['samples']} images: loss {mine['loss']:.6f} "
          f"(PyTorch {ev['loss']:.6f}), top1 {mine['top1']:.4f} "
          f"(PyTorch {ev['top1']:.4f})")
    if args.onnx:
        exported = onnx_weights(args.onnx)
        worst, name = 0.0, ""
        for k, v in ref["state"].items():
            d = relative(exported[k], v)
            if d > worst:
                worst, name = d, k
        check(worst < args.tolerance,
              f"{len(ref['state'])} exported tensors, largest relative "
              f"difference {worst:.1e} ({name})")
        # The exported model, run by PyTorch, scores what hd reported.
        a = argparse.Namespace(**ref["args"])
        model = model_of(a)
        load_weights(model, exported)
        eval_x = np.load(os.path.join(args.out, "eval-x.npy"))
        eval_y = np.load(os.path.join(args.out, "eval-y.npy"))
        again = evaluate(model, Batches(eval_x, eval_y, a.batch, a, True))
        check(again["top1"] == mine["top1"],
              f"the exported model in PyTorch: top1 {again['top1']:.4f}")
    sys.exit(0 if ok else DIFFERENT)


def same_eval(args):
    a, b = (json.load(open(m))["eval"][-1] for m in args.metrics)
    ok = abs(a["loss"] - b["loss"]) <= 1e-5 * abs(b["loss"]) and \
        a["top1"] == b["top1"] and a["top5"] == b["top5"] and \
        a["samples"] == b["samples"]
    print("%s: loss %.6f and %.6f, top1 %.4f and %.4f" % (
        "ok" if ok else "DIFFERENT", a["loss"], b["loss"], a["top1"],
        b["top1"]))
    sys.exit(0 if ok else DIFFERENT)


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="command", required=True)
    m = sub.add_parser("make")
    m.add_argument("out")
    m.add_argument("--steps", type=int, required=True)
    m.add_argument("--batch", type=int, required=True)
    m.add_argument("--train-samples", type=int, default=256)
    m.add_argument("--eval-samples", type=int, default=100)
    m.add_argument("--seed", type=int, default=3)
    m.add_argument("--lr", type=float, default=0.01)
    m.add_argument("--momentum", type=float, default=0.9)
    m.add_argument("--weight-decay", type=float, default=5e-4)
    m.add_argument("--nesterov", action="store_true")
    m.add_argument("--schedule", default="constant")
    m.add_argument("--warmup", type=int, default=0)
    m.add_argument("--shuffle", action="store_true")
    m.add_argument("--flip", action="store_true")
    m.add_argument("--crop", type=int, default=-1)
    m.add_argument("--mean", type=float)
    m.add_argument("--std", type=float, default=1.0)
    m.add_argument("--image-folder", action="store_true")
    m.add_argument("--threads", type=int, default=1)
    m.add_argument("--channel-operands", action="store_true")
    c = sub.add_parser("compare")
    c.add_argument("out")
    c.add_argument("metrics")
    c.add_argument("--onnx")
    c.add_argument("--tolerance", type=float, default=1e-4)
    c.add_argument("--top1-within", type=float)
    e = sub.add_parser("same-eval")
    e.add_argument("metrics", nargs=2)
    args = p.parse_args()
    {"make": make, "compare": compare, "same-eval": same_eval}[args.command](
        args)


if __name__ == "__main__":
    main()
