# Exports the blocks of ShuffleNetV2 and ConvNeXt from Debian's
# python3-torchvision (their own classes, small channel counts) as PyTorch
# writes them, to test the importer on an exporter's real output: shape
# arithmetic, the channel shuffle, channel splits, channels-last layer
# norms, Linear layers on the last dim, the erf GELU and the layer scale.
# Run with /usr/bin/python3 from this directory; the outputs are checked in.
import os
import sys

import torch
from torchvision.models import convnext, shufflenetv2

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "..", "models"))
from lenet import export  # noqa: E402


class ShuffleBlocks(torch.nn.Module):
    """ShuffleNetV2's downsampling unit (two branches, shuffle) and its basic
    unit (chunk along channels, shuffle), then a classifier."""

    def __init__(self):
        super().__init__()
        self.down = shufflenetv2.InvertedResidual(8, 16, 2)
        self.basic = shufflenetv2.InvertedResidual(16, 16, 1)
        self.fc = torch.nn.Linear(16, 10)

    def forward(self, x):
        x = self.basic(self.down(x))
        return self.fc(x.mean([2, 3]))


class ConvNeXtBlocks(torch.nn.Module):
    """ConvNeXt's stem norm (LayerNorm2d), one block (depthwise 7x7,
    channels-last LayerNorm, Linear, GELU, Linear, layer scale, residual),
    then a classifier."""

    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Conv2d(3, 8, kernel_size=2, stride=2)
        self.norm = convnext.LayerNorm2d(8, eps=1e-6)
        self.block = convnext.CNBlock(8, layer_scale=0.5,
                                      stochastic_depth_prob=0.0)
        self.fc = torch.nn.Linear(8, 10)

    def forward(self, x):
        x = self.block(self.norm(self.stem(x)))
        return self.fc(x.mean([2, 3]))


torch.manual_seed(0)
export(ShuffleBlocks(), "shuffle_blocks.onnx", (2, 8, 8, 8))
export(ConvNeXtBlocks(), "convnext_blocks.onnx", (2, 3, 8, 8))
export(ConvNeXtBlocks(), "convnext_blocks17.onnx", (2, 3, 8, 8), opset=17)
