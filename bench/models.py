"""Benchmark models, built from code at bench time (no downloads, no committed archives).

Each factory takes no arguments and returns an ``nn.Module`` in eval mode, so the same
callable serves `opscope export bench/models.py:<factory>` and the Python peers
(model_list.py names them, with their input specs).
Widths are tiny on purpose: the benchmarks scale the graph, not the arithmetic, and the
archives stay a few MB at most.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import torch
from torch import nn

# ---------------------------------------------------------------- the reference's MyModel

# One copy of each fixture model: the reference's MyModel lives in python/fixtures/reference.py.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from fixtures.reference import MyModel  # noqa: E402


# ---------------------------------------------------------------- ResNet-50-shaped convnet


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, in_channels: int, width: int, stride: int):
        super().__init__()
        out_channels = width * self.expansion
        self.conv1 = nn.Conv2d(in_channels, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, out_channels, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(out_channels)
        self.relu = nn.ReLU()
        self.downsample = None
        if stride != 1 or in_channels != out_channels:
            self.downsample = nn.Sequential(
                nn.Conv2d(in_channels, out_channels, 1, stride=stride, bias=False),
                nn.BatchNorm2d(out_channels),
            )

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return self.relu(out + identity)


class ResNet50Shaped(nn.Module):
    """torchvision's ResNet-50 layout ([3, 4, 6, 3] bottlenecks), at 1/8 of its widths."""

    def __init__(self, base_width: int = 8, num_classes: int = 10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, base_width, 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(base_width)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2d(3, stride=2, padding=1)
        in_channels = base_width
        stages = []
        for stage, blocks in enumerate((3, 4, 6, 3)):
            width = base_width * 2**stage
            layers = []
            for block in range(blocks):
                stride = 2 if stage > 0 and block == 0 else 1
                layers.append(Bottleneck(in_channels, width, stride))
                in_channels = width * Bottleneck.expansion
            stages.append(nn.Sequential(*layers))
        self.layer1, self.layer2, self.layer3, self.layer4 = stages
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(in_channels, num_classes)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


# ---------------------------------------------------------------- GPT-style decoder


class CausalSelfAttention(nn.Module):
    def __init__(self, width: int, heads: int, context: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        mask = torch.tril(torch.ones(context, context, dtype=torch.bool))
        self.register_buffer("causal_mask", mask.view(1, 1, context, context))

    def forward(self, x):
        batch, seq, width = x.shape
        q, k, v = self.qkv(x).split(width, dim=2)
        head_dim = width // self.heads
        q = q.view(batch, seq, self.heads, head_dim).transpose(1, 2)
        k = k.view(batch, seq, self.heads, head_dim).transpose(1, 2)
        v = v.view(batch, seq, self.heads, head_dim).transpose(1, 2)
        scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(head_dim))
        scores = scores.masked_fill(~self.causal_mask[:, :, :seq, :seq], float("-inf"))
        attended = torch.softmax(scores, dim=-1) @ v
        return self.proj(attended.transpose(1, 2).reshape(batch, seq, width))


class MLP(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.fc = nn.Linear(width, 4 * width)
        self.act = nn.GELU()
        self.proj = nn.Linear(4 * width, width)

    def forward(self, x):
        return self.proj(self.act(self.fc(x)))


class Block(nn.Module):
    def __init__(self, width: int, heads: int, context: int):
        super().__init__()
        self.ln_1 = nn.LayerNorm(width)
        self.attn = CausalSelfAttention(width, heads, context)
        self.ln_2 = nn.LayerNorm(width)
        self.mlp = MLP(width)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    """GPT-2's layout (token + position embeddings, pre-norm blocks, tied-free head)."""

    def __init__(self, layers: int, width: int = 16, heads: int = 2, vocab: int = 64,
                 context: int = 16):
        super().__init__()
        self.wte = nn.Embedding(vocab, width)
        self.wpe = nn.Embedding(context, width)
        self.h = nn.ModuleList(Block(width, heads, context) for _ in range(layers))
        self.ln_f = nn.LayerNorm(width)
        self.lm_head = nn.Linear(width, vocab, bias=False)

    def forward(self, idx):
        positions = torch.arange(idx.shape[1], device=idx.device)
        x = self.wte(idx) + self.wpe(positions)
        for block in self.h:
            x = block(x)
        return self.lm_head(self.ln_f(x))


# ---------------------------------------------------------------- transformers (from configs)


class _HiddenStates(nn.Module):
    """Returns the last hidden state as a plain tensor so every exporter sees one output."""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x).last_hidden_state


def _seeded() -> None:
    torch.manual_seed(0)


def my_model() -> nn.Module:
    _seeded()
    return MyModel().eval()


def resnet50_shaped() -> nn.Module:
    _seeded()
    return ResNet50Shaped().eval()


def vit_small() -> nn.Module:
    from transformers import ViTConfig, ViTModel

    _seeded()
    config = ViTConfig(hidden_size=32, num_hidden_layers=4, num_attention_heads=2,
                       intermediate_size=64, image_size=32, patch_size=8,
                       attn_implementation="eager")
    return _HiddenStates(ViTModel(config, add_pooling_layer=False)).eval()


def bert_small() -> nn.Module:
    from transformers import BertConfig, BertModel

    _seeded()
    config = BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=4,
                        num_attention_heads=2, intermediate_size=64,
                        max_position_embeddings=64, attn_implementation="eager")
    return _HiddenStates(BertModel(config, add_pooling_layer=False)).eval()


def gpt_12() -> nn.Module:
    _seeded()
    return GPT(12).eval()


def gpt_96() -> nn.Module:
    _seeded()
    return GPT(96).eval()


def gpt_384() -> nn.Module:
    _seeded()
    return GPT(384).eval()


_DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
           "int64": torch.int64, "int32": torch.int32, "bool": torch.bool}


def make_input(spec: str) -> torch.Tensor:
    """Builds one example tensor from an `opscope export --input` spec (`1x8:int64:0..100`)."""
    parts = spec.split(":")
    shape = [int(n) for n in parts[0].split("x")]
    dtype = _DTYPES[parts[1]] if len(parts) > 1 else torch.float32
    if dtype.is_floating_point:
        return torch.randn(shape, dtype=dtype)
    low, high = (0, 2)
    if len(parts) > 2:
        low, high = (int(n) for n in parts[2].split(".."))
    return torch.randint(low, high, shape, dtype=dtype)


def make_inputs(specs) -> tuple:
    torch.manual_seed(0)
    return tuple(make_input(spec) for spec in specs)
