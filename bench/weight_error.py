"""Issue 28's speed figures for the per-layer weight error (prints them; not a test):
`opscope explain CONFIG --model M.pt2` on an archive saved with its weights, under an int4
per-block-32 config, for a ResNet-18-shaped model (11.7 M parameters, conv-bn folded) and a
GPT-2-124M-shaped one (12 layers, width 768, vocab 50257; random weights). The index is cached
first; then each run is timed twice, interleaved: with the weight error (opscope-weights
measuring every quantized weight) and with the worker switched off (OPSCOPE_WEIGHTS naming no
program: explain says "not measured"); the difference is the weight error's cost. Also the
peak RSS of the worker's run.

  .venv/bin/python bench/weight_error.py --build-dir build [--runs 3] [--models resnet18,gpt2]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch
from torch import nn

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

from models import GPT  # noqa: E402

CONFIG = {"quantization_config": {"global_config": {"op_state_spec": {"weight": {
    "dtype": "int4", "granularity": {"type": "per_block", "block_size": 32}}}}}}


class BasicBlock(nn.Module):
    def __init__(self, inputs: int, outputs: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(inputs, outputs, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(outputs)
        self.conv2 = nn.Conv2d(outputs, outputs, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(outputs)
        self.relu = nn.ReLU()
        self.downsample = None
        if stride != 1 or inputs != outputs:
            self.downsample = nn.Sequential(nn.Conv2d(inputs, outputs, 1, stride, bias=False),
                                            nn.BatchNorm2d(outputs))

    def forward(self, x):
        skip = x if self.downsample is None else self.downsample(x)
        return self.relu(self.bn2(self.conv2(self.relu(self.bn1(self.conv1(x))))) + skip)


class ResNet18Shaped(nn.Module):
    """torchvision's resnet18 layout: 11.69 M parameters."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        widths, layers, inputs = [64, 128, 256, 512], [], 64
        for i, width in enumerate(widths):
            layers.append(nn.Sequential(BasicBlock(inputs, width, 1 if i == 0 else 2),
                                        BasicBlock(width, width, 1)))
            inputs = width
        self.layer1, self.layer2, self.layer3, self.layer4 = layers
        self.fc = nn.Linear(512, 1000)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(torch.mean(x, dim=(2, 3)), 1))


def build(name: str):
    torch.manual_seed(0)
    if name == "resnet18":
        return ResNet18Shaped().eval(), (torch.randn(1, 3, 224, 224),)
    if name == "gpt2":
        return GPT(12, width=768, heads=12, vocab=50257, context=64).eval(), (
            torch.randint(0, 50257, (1, 16)),)
    raise SystemExit(f"unknown model {name}")


def explain(opscope: str, config: str, archive: str, env: dict) -> tuple[float, dict]:
    started = time.monotonic()
    proc = subprocess.run([opscope, "explain", config, "--model", archive, "--json", "--quiet"],
                          capture_output=True, text=True, env=env, check=True)
    return time.monotonic() - started, json.loads(proc.stdout)["weight_error"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", default="build")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--models", default="resnet18,gpt2")
    args = parser.parse_args()
    build_dir = Path(args.build_dir).resolve()
    opscope = str(build_dir / "opscope")
    with tempfile.TemporaryDirectory() as tmp:
        config = os.path.join(tmp, "int4.json")
        Path(config).write_text(json.dumps(CONFIG))
        for name in args.models.split(","):
            model, inputs = build(name)
            parameters = sum(p.numel() for p in model.parameters())
            archive = os.path.join(tmp, f"{name}.pt2")
            torch.export.save(torch.export.export(model, inputs), archive)
            on = dict(os.environ, OPSCOPE_WEIGHTS=str(build_dir / "opscope-weights"))
            off = dict(os.environ, OPSCOPE_WEIGHTS=os.path.join(tmp, "no-worker"))
            explain(opscope, config, archive, off)  # the index, cached
            with_error, without = [], []
            for _ in range(args.runs):
                seconds, report = explain(opscope, config, archive, on)
                with_error.append(seconds)
                without.append(explain(opscope, config, archive, off)[0])
            rows = report["parameters"]
            measured = [r for r in rows if "sqnr_db" in r]
            peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
            worst = ", ".join(report["worst"])
            print(f"{name}: {parameters / 1e6:.2f} M parameters, {len(measured)}/{len(rows)} "
                  f"weights measured; explain {statistics.median(with_error):.2f} s with the "
                  f"weight error, {statistics.median(without):.2f} s without (median of "
                  f"{args.runs}): weight error {statistics.median(with_error) - statistics.median(without):.2f} s; "
                  f"largest child peak RSS so far {peak:.0f} MB; worst: {worst}")


if __name__ == "__main__":
    main()
