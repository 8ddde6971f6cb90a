"""A small ResNet-18-shaped image classifier: the example model for opscope.

Try it (from the repository root, after building):

    opscope summary examples/resnet/model.py:build --input 1x3x64x64 --compressor quantizer
    opscope query   examples/resnet/model.py:build --input 1x3x64x64 --module-name 'layer1\\..*'
    opscope inputs  examples/resnet/model.py:build --input 1x3x64x64 layer2.0

and open quant.yaml in an editor with the opscope language server (opscope.yaml says
which model and inputs to use).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class BasicBlock(nn.Module):
    """Two 3x3 convolutions with a shortcut, as in ResNet-18."""

    def __init__(self, in_channels: int, out_channels: int, stride: int = 1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, out_channels, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(out_channels)
        self.conv2 = nn.Conv2d(out_channels, out_channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_channels)
        self.downsample = None
        if stride != 1 or in_channels != out_channels:
            self.downsample = nn.Sequential(
                nn.Conv2d(in_channels, out_channels, 1, stride=stride, bias=False),
                nn.BatchNorm2d(out_channels),
            )

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + identity)


class ResNet18(nn.Module):
    """ResNet-18 layout (2 blocks per stage) with narrow channels, so it exports fast."""

    def __init__(self, num_classes: int = 10, width: int = 16):
        super().__init__()
        self.conv1 = nn.Conv2d(3, width, 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2d(3, stride=2, padding=1)
        self.layer1 = nn.Sequential(BasicBlock(width, width), BasicBlock(width, width))
        self.layer2 = nn.Sequential(BasicBlock(width, 2 * width, 2), BasicBlock(2 * width, 2 * width))
        self.layer3 = nn.Sequential(BasicBlock(2 * width, 4 * width, 2),
                                    BasicBlock(4 * width, 4 * width))
        self.layer4 = nn.Sequential(BasicBlock(4 * width, 8 * width, 2),
                                    BasicBlock(8 * width, 8 * width))
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8 * width, num_classes)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        x = torch.flatten(self.avgpool(x), 1)
        return self.fc(x)


def build() -> nn.Module:
    """The factory opscope calls (`model.py:build`)."""
    torch.manual_seed(0)
    return ResNet18().eval()
