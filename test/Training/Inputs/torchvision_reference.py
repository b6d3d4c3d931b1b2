"""PyTorch's side of the torchvision families test: a classification CNN
from Debian's python3-torchvision, built seeded with no pretrained weights
(weights=None) and with dropout and stochastic depth off, exported with its
initial weights as hd imports it, and its first training steps in PyTorch.

  torchvision_reference.py export OUT.onnx ARCH [--size 224] [--opset 13]
      [--classes 1000] [--seed 3]
    the model alone, as `make` exports it (for bench/families_bench.py).
  torchvision_reference.py make OUT ARCH [--batch N] [--size S]
      [--steps K] [--opset 13|17] [--seed 3] [--lr X]
    writes OUT/init.onnx (training-mode export, opset 13 by default),
    OUT/x.npy (float32 N x 3 x S x S images), OUT/y.npy (int64 labels) and
    OUT/reference.json: PyTorch's per-step losses on that one batch, trained
    with hd's defaults (SGD, momentum 0.9, weight decay 5e-4), and how far
    the same training in float64 lies from them.
  torchvision_reference.py lr OUT
    the learning rate `make` trained with, for hd's run.
  torchvision_reference.py compare OUT METRICS [--step1 1e-4] [--later 1e-3]
    hd's --metrics against it: step 1's loss within a relative 1e-4 (the
    forward pass on the same weights), later steps within 1e-3 (every
    gradient and the update); prints one line, exits 1 on a difference, or
    when float32 rounding alone moves PyTorch's losses by over half the
    tolerance (the comparison would not tell hd's errors from noise), or
    when PyTorch's loss moves by less than --min-move (0.5%) from step 1
    (step 2 would hardly test the gradients).
"""
import argparse
import copy
import json
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F
import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "models"))
from lenet import export  # noqa: E402

# One architecture per family; the smallest where a family has several.
# AlexNet and VGG need 224 x 224 pixels (the export supports their adaptive
# pool only where it divides evenly), and Inception-v3 takes 160; the
# others take 64.
#
# The learning rate is the family's own: the largest that keeps step 2
# comparable, and large enough that step 2 tests the gradients (`compare`
# fails when PyTorch's loss moves by less than half a percent). Two float32
# programs round differently (PyTorch's own float32 batch-norm outputs lie
# up to 1e-3 from float64 ones in RegNet), so a ReLU input within that of
# zero can pass its gradient in one and not the other; the larger the rate,
# the more such a flip moves step 2's loss. Most families take 1e-6; those
# whose initial gradients are small (AlexNet, VGG, MobileNetV3, ResNet,
# DenseNet, SqueezeNet) take more, and MNASNet and Inception-v3, whose
# gradients are 10 to 100 times larger, take 1e-7 and 1e-8.
FAMILIES = {
    "alexnet": {"size": 224, "lr": 1e-1},
    "vgg11": {"size": 224, "lr": 1e-3},
    "vgg11_bn": {"size": 224, "lr": 1e-4},
    "resnet18": {"lr": 1e-4},
    "resnext50_32x4d": {},
    "wide_resnet50_2": {},
    "densenet121": {"lr": 1e-4},
    "inception_v3": {"size": 160, "lr": 1e-8,
                     "kwargs": {"aux_logits": False,
                                            "init_weights": True}},
    "googlenet": {"kwargs": {"aux_logits": False, "init_weights": True}},
    "squeezenet1_1": {"lr": 1e-3},
    "mobilenet_v2": {},
    "mobilenet_v3_small": {"lr": 5e-2},
    "mobilenet_v3_large": {"lr": 1e-2},
    "mnasnet0_5": {"lr": 1e-7},
    "efficientnet_b0": {},
    "efficientnet_v2_s": {},
    "regnet_x_400mf": {},
    "regnet_y_400mf": {},
    "shufflenet_v2_x0_5": {"lr": 1e-5},
    "convnext_tiny": {"lr": 1e-4,
                      "kwargs": {"stochastic_depth_prob": 0.0}},
}


def build(arch, classes):
    spec = FAMILIES[arch]
    model = getattr(torchvision.models, arch)(
        weights=None, num_classes=classes, **spec.get("kwargs", {}))
    # Dropout and stochastic depth off: their masks are random draws hd
    # does not share with PyTorch. (With p = 0, stochastic depth exports
    # nothing and dropout a ratio-0 Dropout.)
    for m in model.modules():
        if isinstance(m, (torch.nn.Dropout, torchvision.ops.StochasticDepth)):
            m.p = 0.0
    return model


def make(args):
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    model = build(args.arch, args.classes)
    size = args.size or FAMILIES[args.arch].get("size", 64)
    args.lr = args.lr or FAMILIES[args.arch].get("lr", 1e-6)
    rng = np.random.default_rng(args.seed)
    x = rng.standard_normal((args.batch, 3, size, size), dtype=np.float32)
    y = rng.integers(0, args.classes, args.batch)
    np.save(os.path.join(args.out, "x.npy"), x)
    np.save(os.path.join(args.out, "y.npy"), y)

    export(model, os.path.join(args.out, "init.onnx"),
           (args.batch, 3, size, size), args.opset)
    # The export ran the model once; start from the weights it wrote.
    torch.manual_seed(args.seed)
    fresh = build(args.arch, args.classes)
    fresh.load_state_dict(model.state_dict())
    model = fresh.train()

    # The same in float64 tells how far float32 rounding alone moves the
    # losses: a comparison is meaningful only well inside its tolerance.
    exact = copy.deepcopy(model).double()
    losses = train(model, x, y, args)
    exact_losses = train(exact.train(), x.astype(np.float64), y, args)
    rounding = [abs(a - b) / abs(b) for a, b in zip(losses, exact_losses)]
    with open(os.path.join(args.out, "reference.json"), "w") as f:
        json.dump({"arch": args.arch, "batch": args.batch, "size": size,
                   "lr": args.lr, "losses": losses,
                   "float32_rounding": rounding}, f)
    print(f"reference: {args.arch}, {args.steps} steps of {args.batch} at "
          f"{size}x{size}: losses {' '.join(f'{v:.6f}' for v in losses)}; "
          f"float32 against float64: {' '.join(f'{r:.1e}' for r in rounding)}")


def train(model, x, y, args):
    """hd's defaults: SGD with momentum 0.9 and weight decay 5e-4."""
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9,
                          weight_decay=5e-4)
    images, labels = torch.from_numpy(x), torch.from_numpy(y)
    losses = []
    for _ in range(args.steps):
        opt.zero_grad()
        loss = F.cross_entropy(model(images), labels)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def compare(args):
    with open(os.path.join(args.out, "reference.json")) as f:
        ref = json.load(f)
    with open(args.metrics) as f:
        hd = json.load(f)["losses"]
    want = ref["losses"]
    if len(hd) != len(want):
        print(f"FAIL: {ref['arch']}: hd ran {len(hd)} steps, PyTorch "
              f"{len(want)}")
        return 1
    worst = []
    for i, (a, b) in enumerate(zip(hd, want)):
        rel = abs(a - b) / max(abs(b), 1e-12)
        limit = args.step1 if i == 0 else args.later
        if not ref["float32_rounding"][i] <= limit / 2:
            print(f"FAIL: {ref['arch']}: step {i + 1} is ill-conditioned: "
                  f"float32 rounding alone moves PyTorch's loss by "
                  f"{ref['float32_rounding'][i]:.1e} (use a smaller --lr)")
            return 1
        worst.append(rel)
        if not rel <= limit:
            print(f"FAIL: {ref['arch']}: step {i + 1} loss {a:.7g}, PyTorch "
                  f"{b:.7g}: relative difference {rel:.2e} > {limit:g}")
            return 1
    moved = abs(want[-1] - want[0]) / want[0]
    if not moved >= args.min_move:
        print(f"FAIL: {ref['arch']}: PyTorch's loss moved {moved:.2%} from "
              f"step 1: too little for its later steps to test the gradients "
              f"(use a larger --lr)")
        return 1
    print(f"ok: {ref['arch']}: {len(hd)} losses, relative differences "
          + " ".join(f"{r:.1e}" for r in worst) + "; PyTorch's loss moved "
          f"{moved:.1%} from step 1")
    return 0


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export")
    e.add_argument("out")
    e.add_argument("arch", choices=sorted(FAMILIES))
    e.add_argument("--size", type=int, default=224)
    e.add_argument("--opset", type=int, default=13)
    e.add_argument("--classes", type=int, default=1000)
    e.add_argument("--seed", type=int, default=3)
    m = sub.add_parser("make")
    m.add_argument("out")
    m.add_argument("arch", choices=sorted(FAMILIES))
    m.add_argument("--batch", type=int, default=4)
    m.add_argument("--size", type=int, default=0)
    m.add_argument("--steps", type=int, default=2)
    m.add_argument("--classes", type=int, default=10)
    m.add_argument("--opset", type=int, default=13)
    m.add_argument("--seed", type=int, default=3)
    m.add_argument("--lr", type=float, default=0,
                   help="default: the family's, 1e-6 for most")
    sub.add_parser("lr").add_argument("out")
    c = sub.add_parser("compare")
    c.add_argument("out")
    c.add_argument("metrics")
    c.add_argument("--step1", type=float, default=1e-4)
    c.add_argument("--later", type=float, default=1e-3)
    c.add_argument("--min-move", type=float, default=0.005)
    args = p.parse_args()
    if args.cmd == "export":
        torch.manual_seed(args.seed)
        export(build(args.arch, args.classes), args.out,
               (2, 3, args.size, args.size), args.opset)
        return 0
    if args.cmd == "lr":
        with open(os.path.join(args.out, "reference.json")) as f:
            print(json.load(f)["lr"])
        return 0
    if args.cmd == "make":
        make(args)
        return 0
    return compare(args)


if __name__ == "__main__":
    sys.exit(main())
