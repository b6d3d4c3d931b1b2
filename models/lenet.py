"""LeNet-5 with batch norm, for 28x28 grayscale images (Fashion-MNIST): the
PyTorch model of `make demo`'s training run and of the equivalence tests.

  /usr/bin/python3 models/lenet.py OUT.onnx [--seed S] [--classes K]

exports it, with PyTorch's initial weights for the seed, to ONNX the way hd
reads it (training mode, no constant folding, dynamic batch). Others import
`LeNet` and `export`.
"""
import argparse
import warnings

import torch
from torch import nn


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


def export(model, path, shape=(1, 1, 28, 28)):
    """Writes `model` with its current weights as hd imports it."""
    model.train()
    warnings.filterwarnings("ignore", module="torch.onnx")
    torch.onnx.export(
        model, torch.zeros(*shape), path, opset_version=13,
        training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False,
        input_names=["images"], output_names=["logits"],
        dynamic_axes={"images": {0: "N"}, "logits": {0: "N"}})


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--classes", type=int, default=10)
    args = p.parse_args()
    torch.manual_seed(args.seed)
    export(LeNet(args.classes), args.out)
