"""Small models exported into .pt2 fixtures for the core/inspect unit tests.

The C++ tests look up source lines by their text, so edits here only need to
keep each statement on one line.
"""
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

# One copy of each fixture model: the reference's MyModel and the BatchNorm exported in train
# mode (mutated buffers) live in python/fixtures.
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                                "python")))
from fixtures.reference import MyModel  # noqa: E402,F401
from fixtures.small import BatchNormTrain as BufferUpdate  # noqa: E402,F401


class Block(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(y + x)


class ResNetLike(nn.Module):
    """A ResNet-18-shaped convnet: stem, pooling, residual blocks in a ModuleList, head."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU())
        self.pool = nn.MaxPool2d(2)
        self.layers = nn.ModuleList([Block(8), Block(8)])
        self.avg = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        x = self.pool(self.stem(x))
        for layer in self.layers:
            x = layer(x)
        x = torch.flatten(self.avg(x), 1)
        return self.fc(x)


class MultiOutput(nn.Module):
    """Buffers, a tensor constant, multi-output ops (getitem nodes) and tuple outputs."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        self.register_buffer("scale", torch.ones(8))
        self.const = torch.randn(8)
        self.pool = nn.MaxPool1d(2, return_indices=True)

    def forward(self, idx):
        e = self.emb(idx) * self.scale
        s = e + self.const
        first, second = torch.split(s, 4, dim=2)
        p, i = self.pool(first)
        return p, i, (second.max(dim=-1).values, first @ second.transpose(1, 2))


class BuiltinArgumentName(nn.Module):
    """A forward argument named like a Python builtin, an int argument and a keyword tensor."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, input, n: int, *, scale=None):
        return self.proj(input) * scale + n
