"""LeNet-5 with batch norm, for 28x28 grayscale images (Fashion-MNIST): the
PyTorch model of `make demo`'s training run and of the training tests.

  /usr/bin/python3 models/lenet.py export OUT.onnx [--seed S] [--classes K]
    exports it, with PyTorch's initial weights for the seed, to ONNX the way
    hd reads it (training mode, no constant folding, dynamic batch).
  /usr/bin/python3 models/lenet.py evaluate MODEL.onnx [--mean M --std S]
    loads the weights of an ONNX export (hd's --export-onnx writes one) into
    the PyTorch model and prints its top-1 on Fashion-MNIST's 10,000 test
    images.
Others import `LeNet`, `export` (any CNN, as hd imports it),
`fashion_mnist`, `onnx_weights` and `load_weights`.
"""
import argparse
import gzip
import warnings

import numpy as np
import torch
from torch import nn

FASHION = "/usr/share/datasets/fashion-mnist"


class LeNet(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 6, 5, padding=2, bias=False),
            nn.BatchNorm2d(6),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(6, 16, 5, bias=False),
            nn.BatchNorm2d(16),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(
            nn.Flatten(),
            nn.Linear(16 * 5 * 5, 120),
            nn.ReLU(),
            nn.Linear(120, 84),
            nn.ReLU(),
            nn.Linear(84, classes),
        )

    def forward(self, x):
        return self.classifier(self.features(x))


def export(model, path, shape=(1, 1, 28, 28), opset=13):
    """Writes `model` (any PyTorch CNN) with its current weights as hd
    imports it: training mode, no constant folding, a dynamic batch."""
    model.train()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            model, torch.zeros(*shape), path, opset_version=opset,
            training=torch.onnx.TrainingMode.TRAINING,
            do_constant_folding=False, input_names=["images"],
            output_names=["logits"],
            dynamic_axes={"images": {0: "N"}, "logits": {0: "N"}})


def onnx_weights(path):
    """The initializers of an ONNX model, by name, as numpy arrays."""
    import onnx
    from onnx import numpy_helper
    return {t.name: numpy_helper.to_array(t)
            for t in onnx.load(path).graph.initializer}


def load_weights(model, weights):
    """Sets the tensors of `model` that `weights` (onnx_weights) names."""
    state = model.state_dict()
    for name in state:
        if name in weights:
            state[name] = torch.from_numpy(weights[name].copy())
    model.load_state_dict(state)


def fashion_mnist(split, count=None):
    """The first `count` images (uint8, N x 28 x 28) and labels (int64) of
    Debian's Fashion-MNIST split "train" or "eval"."""
    prefix = {"train": "train", "eval": "t10k"}[split]
    with gzip.open(f"{FASHION}/{prefix}-images-idx3-ubyte.gz") as f:
        images = np.frombuffer(f.read(), np.uint8, offset=16)
    with gzip.open(f"{FASHION}/{prefix}-labels-idx1-ubyte.gz") as f:
        labels = np.frombuffer(f.read(), np.uint8, offset=8)
    count = len(labels) if count is None else min(count, len(labels))
    return (images.reshape(-1, 28, 28)[:count].copy(),
            labels[:count].astype(np.int64))


def evaluate(path, mean, std):
    model = LeNet()
    load_weights(model, onnx_weights(path))
    model.eval()
    images, labels = fashion_mnist("eval")
    x = images.reshape(-1, 1, 28, 28)
    y = torch.from_numpy(labels)
    x = (torch.from_numpy(x.astype(np.float32) / np.float32(255)) -
         np.float32(mean)) / np.float32(std)
    with torch.no_grad():
        top1 = (model(x).argmax(1) == y).float().mean().item()
    print(f"PyTorch, with the weights of {path}: top1 {top1:.4f} on "
          f"{len(y)} test images")


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="command", required=True)
    e = sub.add_parser("export")
    e.add_argument("out")
    e.add_argument("--seed", type=int, default=0)
    e.add_argument("--classes", type=int, default=10)
    v = sub.add_parser("evaluate")
    v.add_argument("model")
    v.add_argument("--mean", type=float, default=0.0)
    v.add_argument("--std", type=float, default=1.0)
    args = p.parse_args()
    if args.command == "export":
        torch.manual_seed(args.seed)
        export(LeNet(args.classes), args.out)
    else:
        evaluate(args.model, args.mean, args.std)
