"""Issue 28's figure for `opscope propose` (prints it; not a test): a config proposed for a
budget on a ResNet-18-shaped model (11.7 M parameters) and a GPT-2-124M-shaped one (12 layers,
width 768, vocab 50257, nn.Linear layers; random weights), both saved with their weights
(bench/weight_error.py builds them). The config is the graph-mode Quantizer with int8 per
channel on every weight; each budget is proposed --runs times after the index is cached, and
the median wall time is printed with the bits per weight reached, the weight error and the
best uniform choice's.

  .venv/bin/python bench/propose.py --build-dir build [--runs 3] [--budgets 4.5,6]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

from weight_error import build  # noqa: E402

CONFIG = {"quantization_config": {"global_config": {"op_state_spec": {"weight": {
    "dtype": "int8", "granularity": {"type": "per_channel"}}}}}}


def propose(opscope: str, config: str, archive: str, budget: str) -> tuple[float, str]:
    started = time.monotonic()
    proc = subprocess.run([opscope, "propose", config, "--model", archive, "--bits-per-weight",
                           budget, "--quiet"], capture_output=True, text=True, check=True)
    summary = [line for line in proc.stdout.splitlines()
               if line.startswith(("proposed:", "  ", "best uniform"))]
    return time.monotonic() - started, "; ".join(line.strip() for line in summary)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", default="build")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--budgets", default="4.5,6")
    parser.add_argument("--models", default="resnet18,gpt2")
    args = parser.parse_args()
    opscope = str(Path(args.build_dir).resolve() / "opscope")
    with tempfile.TemporaryDirectory() as tmp:
        config = os.path.join(tmp, "int8.json")
        Path(config).write_text(json.dumps(CONFIG))
        for name in args.models.split(","):
            model, inputs = build(name)
            parameters = sum(p.numel() for p in model.parameters())
            archive = os.path.join(tmp, f"{name}.pt2")
            torch.export.save(torch.export.export(model, inputs), archive)
            propose(opscope, config, archive, args.budgets.split(",")[0])  # the index, cached
            for budget in args.budgets.split(","):
                times = []
                for _ in range(args.runs):
                    seconds, summary = propose(opscope, config, archive, budget)
                    times.append(seconds)
                print(f"{name} ({parameters / 1e6:.2f} M parameters) --bits-per-weight {budget}: "
                      f"{statistics.median(times):.2f} s (median of {args.runs}); {summary}")


if __name__ == "__main__":
    main()
