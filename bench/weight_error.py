"""Issue 28's speed figures for the per-layer weight error (prints them; not a test):
`opscope explain CONFIG --model M.pt2` on an archive saved with its weights, under an int4
per-block-32 config, for a ResNet-18-shaped model (11.7 M parameters, conv-bn folded) and a
GPT-2-124M-shaped one (12 layers, width 768, vocab 50257; random weights). The index is cached
first; then each run is timed twice, interleaved: with the weight error (opscope-weights
measuring every quantized weight) and with the worker switched off (OPSCOPE_WEIGHTS naming no
program: explain says "not measured"); the difference is the weight error's cost. The worker
runs under bench/peak_rss.py: its CPU time and its own peak RSS, against the largest tensor.

The `llama1b` case reads a Hugging Face checkpoint instead (issue 28's 1B row): a
Llama-3.2-1B-shaped model (16 layers, width 2048, MLP 8192, vocab 128256, tied head; 1.24 B
parameters) written by this bench as one bf16 model.safetensors of random weights beside its
config.json (2.5 GB in the temporary folder, never kept), and `--model hf:FOLDER`: the index
comes from the weightless export of the config (timed once, cached), the weights from the
file, mapped tensor by tensor. The worker runs under bench/peak_rss.py, so its own wall time
and peak RSS are printed beside the largest tensor's bytes (the issue: <= 60 s, peak <= 2x).

Beside the int4 figures, the same two models under the KMeansPalettizer (4-bit palette per
tensor, k-means as coreai-opt runs it: fast mode, float16-rounded values) and the
MagnitudePruner (50 % unstructured), issue 28 item 2's "palettization's figures stated beside
them". Both compressors run in eager mode only, so their archive is exported by `opscope
export`'s helper for both modes with the weights (the same model and seed).

  .venv/bin/python bench/weight_error.py --build-dir build [--runs 3] [--models resnet18,gpt2,llama1b]
      [--compressors int4,palettize,prune]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import struct
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
# A Llama's RMSNorm weights have no default axis in coreai-opt (prepare() raises without one).
CONFIG_AXIS = {"quantization_config": {"global_config": {"op_state_spec": {"weight": {
    "dtype": "int4", "granularity": {"type": "per_block", "axis": -1, "block_size": 32}}}}}}
# The other compressors (eager only), measured on resnet18 and gpt2.
COMPRESSORS = {
    "palettize": ("4-bit palette per tensor", {"kmeans_palettization_config": {
        "global_config": {"op_state_spec": {"weight": {"n_bits": 4}}}}}),
    "prune": ("50 % unstructured pruning", {"magnitude_pruning_config": {
        "global_config": {"op_state_spec": {"weight": {"target_sparsity": 0.5}}}}}),
}
INPUTS = {"resnet18": ["1x3x224x224"], "gpt2": ["1x16:int64:0..50256"]}
LLAMA_1B = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 2048,
    "intermediate_size": 8192, "num_hidden_layers": 16, "num_attention_heads": 32,
    "num_key_value_heads": 8, "head_dim": 64, "vocab_size": 128256,
    "max_position_embeddings": 2048, "rms_norm_eps": 1e-5, "rope_theta": 500000.0,
    "tie_word_embeddings": True, "torch_dtype": "bfloat16", "use_cache": False,
}


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


def resnet18_shaped():
    """The export helper's target for the eager-mode archive (seeded as build() is)."""
    return build("resnet18")[0]


def gpt2_shaped():
    return build("gpt2")[0]


def export_both_modes(name: str, archive: str) -> None:
    """`opscope export`'s helper: graph and eager records, with the weights."""
    args = [sys.executable, "-m", "opscope_export", f"{Path(__file__).resolve()}:{name}_shaped",
            "--mode", "graph", "--mode", "eager", "--with-weights", "-o", archive]
    for spec in INPUTS[name]:
        args += ["--input", spec]
    env = dict(os.environ, PYTHONPATH=str(BENCH_DIR.parent / "python"))
    subprocess.run(args, check=True, env=env, capture_output=True)


def explain(opscope: str, config: str, archive: str, env: dict) -> tuple[float, dict]:
    started = time.monotonic()
    proc = subprocess.run([opscope, "explain", config, "--model", archive, "--json", "--quiet",
                           "--trust"],
                          capture_output=True, text=True, env=env, check=True)
    return time.monotonic() - started, json.loads(proc.stdout)["weight_error"]


def llama_1b_tensors() -> list[tuple[str, list[int]]]:
    """(name, shape) of every tensor save_pretrained writes for LLAMA_1B (the tied head is
    saved once, as the embedding)."""
    c = LLAMA_1B
    width, mlp, kv = c["hidden_size"], c["intermediate_size"], c["num_key_value_heads"] * c["head_dim"]
    tensors = [("model.embed_tokens.weight", [c["vocab_size"], width])]
    for i in range(c["num_hidden_layers"]):
        layer = f"model.layers.{i}."
        tensors += [(layer + "self_attn.q_proj.weight", [width, width]),
                    (layer + "self_attn.k_proj.weight", [kv, width]),
                    (layer + "self_attn.v_proj.weight", [kv, width]),
                    (layer + "self_attn.o_proj.weight", [width, width]),
                    (layer + "mlp.gate_proj.weight", [mlp, width]),
                    (layer + "mlp.up_proj.weight", [mlp, width]),
                    (layer + "mlp.down_proj.weight", [width, mlp]),
                    (layer + "input_layernorm.weight", [width]),
                    (layer + "post_attention_layernorm.weight", [width])]
    return tensors + [("model.norm.weight", [width])]


def write_llama_1b(folder: Path) -> tuple[int, int]:
    """config.json and model.safetensors (bf16, N(0, 0.02) weights, norms near 1), written one
    tensor at a time as safetensors lays them out. Returns (parameters, largest tensor bytes)."""
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps(LLAMA_1B, indent=2))
    tensors = llama_1b_tensors()
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, shape in tensors:
        size = 2 * math.prod(shape)
        header[name] = {"dtype": "BF16", "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)  # the data 8-byte aligned, as safetensors writes it
    generator = torch.Generator().manual_seed(28)
    with open(folder / "model.safetensors", "wb") as out:
        out.write(struct.pack("<Q", len(text)) + text)
        for name, shape in tensors:
            if name.endswith("norm.weight"):
                t = 1 + 0.1 * torch.randn(shape, generator=generator)
            else:
                t = 0.02 * torch.randn(shape, generator=generator)
            out.write(t.to(torch.bfloat16).view(torch.int16).numpy().tobytes())
            del t
    return sum(math.prod(s) for _, s in tensors), max(2 * math.prod(s) for _, s in tensors)


def measured_worker(build_dir: Path, tmp: str) -> tuple[Path, Path]:
    """The worker under the peak-RSS trampoline (OPSCOPE_WEIGHTS names it), so its own wall
    time and high-water mark land in the JSON file, not the harness's (Linux folds a forking
    process's peak into its child's)."""
    measured = Path(tmp) / "worker.json"
    wrapper = Path(tmp) / "opscope-weights-measured"
    wrapper.write_text(f"#!/bin/sh\nexec {sys.executable} -S -E {BENCH_DIR / 'peak_rss.py'} "
                       f"{measured} {build_dir / 'opscope-weights'} \"$@\"\n")
    wrapper.chmod(0o755)
    return wrapper, measured


def largest_tensor_bytes(model) -> int:
    return max(t.numel() * t.element_size() for t in model.state_dict().values())


def timed_runs(opscope, config, model, on, off, worker_json, runs):
    """`runs` explains with the weight error (worker on) and without (worker off): their
    seconds, the worker's own measurements, and the last report."""
    with_error, without, workers = [], [], []
    for _ in range(runs):
        seconds, report = explain(opscope, config, model, on)
        with_error.append(seconds)
        workers.append(json.loads(worker_json.read_text()))
        without.append(explain(opscope, config, model, off)[0])
    return with_error, without, workers, report


def bench_llama_1b(opscope: str, build_dir: Path, tmp: str, runs: int) -> None:
    folder = Path(tmp) / "llama-1b"
    started = time.monotonic()
    parameters, largest = write_llama_1b(folder)
    written = time.monotonic() - started
    config = os.path.join(tmp, "int4-axis.json")
    Path(config).write_text(json.dumps(CONFIG_AXIS))
    wrapper, measured = measured_worker(build_dir, tmp)
    base = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache"), VIRTUAL_ENV=sys.prefix)
    on = dict(base, OPSCOPE_WEIGHTS=str(wrapper))
    off = dict(base, OPSCOPE_WEIGHTS=os.path.join(tmp, "no-worker"))
    model = "hf:" + str(folder)
    started = time.monotonic()
    explain(opscope, config, model, off)  # the weightless export of config.json, cached
    exported = time.monotonic() - started
    with_error, without, workers, report = timed_runs(opscope, config, model, on, off, measured, runs)
    rows = report["parameters"]
    measured_rows = [r for r in rows if "sqnr_db" in r]
    worker_s = statistics.median(w["wall_s"] for w in workers)
    peak = max(w["peak_rss_kb"] for w in workers) * 1024
    print(f"llama1b (safetensors): {parameters / 1e9:.2f} B parameters, bf16 checkpoint "
          f"{(folder / 'model.safetensors').stat().st_size / 1e9:.2f} GB written in {written:.0f} s; "
          f"index (weightless export of config.json) {exported:.0f} s once; "
          f"{len(measured_rows)}/{len(rows)} weights measured; explain "
          f"{statistics.median(with_error):.1f} s with the weight error, "
          f"{statistics.median(without):.1f} s without (median of {runs}); worker "
          f"{worker_s:.1f} s wall, {statistics.median(w['cpu_s'] for w in workers):.1f} s CPU, "
          f"peak RSS {peak / 1e6:.0f} MB = {peak / largest:.2f}x the largest tensor "
          f"({largest / 1e6:.0f} MB); worst: {', '.join(report['worst'])}")


def bench_archive(opscope: str, build_dir: Path, tmp: str, runs: int, name: str, label: str,
                  config: str, archive: str, parameters: int, largest: int) -> None:
    wrapper, worker_json = measured_worker(build_dir, tmp)
    on = dict(os.environ, OPSCOPE_WEIGHTS=str(wrapper))
    off = dict(os.environ, OPSCOPE_WEIGHTS=os.path.join(tmp, "no-worker"))
    explain(opscope, config, archive, off)  # the index, cached
    with_error, without, workers, report = timed_runs(opscope, config, archive, on, off,
                                                      worker_json, runs)
    rows = report["parameters"]
    measured = [r for r in rows if "sqnr_db" in r]
    peak = max(w["peak_rss_kb"] for w in workers) * 1024
    worst = ", ".join(report["worst"])
    sqnrs = [r["sqnr_db"] for r in measured if r["sqnr_db"] is not None]
    median = f"median SQNR {statistics.median(sqnrs):.2f} dB; " if sqnrs and label else ""
    print(f"{name}{' (' + label + ')' if label else ''}: {parameters / 1e6:.2f} M parameters, "
          f"{len(measured)}/{len(rows)} weights measured; explain "
          f"{statistics.median(with_error):.2f} s with the weight error, "
          f"{statistics.median(without):.2f} s without (median of {runs}): weight error "
          f"{statistics.median(with_error) - statistics.median(without):.2f} s; worker "
          f"{statistics.median(w['cpu_s'] for w in workers):.2f} s CPU, peak RSS "
          f"{peak / 1e6:.0f} MB = {peak / largest:.2f}x the largest tensor "
          f"({largest / 1e6:.0f} MB); {median}worst: {worst}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", default="build")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--models", default="resnet18,gpt2,llama1b")
    parser.add_argument("--compressors", default="int4,palettize,prune",
                        help="int4 (the Quantizer), palettize, prune; the last two on resnet18 "
                             "and gpt2")
    args = parser.parse_args()
    build_dir = Path(args.build_dir).resolve()
    opscope = str(build_dir / "opscope")
    compressors = args.compressors.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        config = os.path.join(tmp, "int4.json")
        Path(config).write_text(json.dumps(CONFIG))
        for name in args.models.split(","):
            if name == "llama1b":
                bench_llama_1b(opscope, build_dir, tmp, args.runs)
                continue
            model, inputs = build(name)
            parameters = sum(p.numel() for p in model.parameters())
            largest = largest_tensor_bytes(model)
            if "int4" in compressors:
                archive = os.path.join(tmp, f"{name}.pt2")
                torch.export.save(torch.export.export(model, inputs), archive)
                bench_archive(opscope, build_dir, tmp, args.runs, name, "", config, archive,
                              parameters, largest)
            others = [c for c in compressors if c in COMPRESSORS]
            if not others:
                continue
            archive = os.path.join(tmp, f"{name}-eager.pt2")
            export_both_modes(name, archive)
            for compressor in others:
                label, written = COMPRESSORS[compressor]
                other_config = os.path.join(tmp, f"{compressor}.json")
                Path(other_config).write_text(json.dumps(written))
                bench_archive(opscope, build_dir, tmp, args.runs, name, label, other_config,
                              archive, parameters, largest)


if __name__ == "__main__":
    main()
