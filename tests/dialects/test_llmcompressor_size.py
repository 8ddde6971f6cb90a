"""The checkpoint llm-compressor saves is the judge of opscope's projected size (issue 27).

For tiny transformers architectures built from configs with random weights (Llama, Qwen2 in
float16, Qwen3, Gemma 3's text decoder with its tied head, a Qwen3 MoE whose fused experts
oneshot splits into Linear layers, GPT-2 in float32 with its Conv1D layers and tied head), each
saved as a base checkpoint, a recipe YAML is run as a user runs it: the model loaded with
from_pretrained, `oneshot(model=model, recipe=path)` (the data-free path: no dataset),
`model.save_pretrained(out, save_compressed=True)`. The saved
checkpoint's tensor bytes (every *.safetensors header: dtype x shape) are compared with what
`opscope explain --json` projects twice: for the recipe, and for the checkpoint's own
config.json (its quantization_config as saved: formats, scale dtypes), both on the base
model's weightless index (`--model hf:BASE/config.json`, one export per architecture). The issue
asks for 1 %; every case is printed.

Schemes with static activations (FP8's per-tensor input scale, an asymmetric int8 input with
its zero point) need calibration: those run oneshot with a two-sample dataset. NVFP4's
calibration takes about 10 s on this CPU, so it is not among the cases (its projection equals
the saved 1,190,512 bytes on the Llama here when run by hand).
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
import time

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"  # nothing is downloaded; the models are built from configs

import torch  # noqa: E402
from loguru import logger as loguru_logger  # noqa: E402

loguru_logger.remove()  # llm-compressor logs every step; the test reads the files

from transformers import AutoModelForCausalLM  # noqa: E402
from transformers import (  # noqa: E402
    Gemma3TextConfig,
    GPT2Config,
    LlamaConfig,
    Qwen2Config,
    Qwen3Config,
    Qwen3MoeConfig,
)

TOLERANCE = 0.01  # the 1 %

# Wide enough for group 128 and block 128 to divide the layers, small enough to save in a
# fraction of a second.
TEXT = dict(hidden_size=256, intermediate_size=512, num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=2, vocab_size=512, max_position_embeddings=128)

ARCHITECTURES = {
    "llama": (lambda: LlamaConfig(**TEXT), torch.bfloat16),
    "qwen2": (lambda: Qwen2Config(**TEXT), torch.float16),
    "qwen3": (lambda: Qwen3Config(**TEXT, head_dim=64), torch.bfloat16),
    "gemma3_text": (lambda: Gemma3TextConfig(**TEXT, head_dim=64, sliding_window=16,
                                             tie_word_embeddings=True), torch.bfloat16),
    "qwen3_moe": (lambda: Qwen3MoeConfig(**TEXT, head_dim=64, num_experts=4,
                                         num_experts_per_tok=2, moe_intermediate_size=128),
                  torch.bfloat16),
    "gpt2": (lambda: GPT2Config(n_embd=256, n_layer=2, n_head=4, n_inner=512, vocab_size=512,
                                n_positions=128), torch.float32),
}


def modifier(body: str) -> str:
    return "quant_stage:\n  quant_modifiers:\n    QuantizationModifier:\n" + "".join(
        f"      {line}\n" for line in body.strip().splitlines())


def preset(scheme: str, ignore: str = "[lm_head]") -> str:
    return modifier(f"targets: [Linear]\nscheme: {scheme}\nignore: {ignore}")


# Two groups, two formats (mixed-precision): the attention at 4 bits, asymmetric, in groups of
# 64; the MLP's weights in FP8 per channel with dynamic FP8 activations.
MIXED = modifier("""
ignore: [lm_head]
config_groups:
  attention:
    targets: ["re:.*self_attn\\\\..*_proj$"]
    weights: {num_bits: 4, type: int, symmetric: false, strategy: group, group_size: 64}
  mlp:
    targets: ["re:.*mlp\\\\..*_proj$"]
    weights: {num_bits: 8, type: float, strategy: channel}
    input_activations: {num_bits: 8, type: float, strategy: token, dynamic: true}
""")

# Static activations: an int8 per-tensor input scale with a zero point (asymmetric), with
# llm-compressor's calibration over a two-sample dataset.
STATIC_INT8 = modifier("""
ignore: [lm_head]
config_groups:
  group_0:
    targets: [Linear]
    weights: {num_bits: 8, type: int, strategy: channel}
    input_activations: {num_bits: 8, type: int, strategy: tensor, symmetric: false}
""")

# Cases whose scheme has static activations run llm-compressor's calibration (a dataset);
# the rest its data-free path.
CALIBRATED = {"FP8 (static input scale)", "INT8 static, asymmetric input"}

CASES = [
    ("llama", "W4A16", preset("W4A16")),
    ("llama", "W4A16_ASYM", preset("W4A16_ASYM")),
    ("llama", "W8A8", preset("W8A8")),
    ("llama", "FP8_BLOCK", preset("FP8_BLOCK")),
    ("llama", "NVFP4A16", preset("NVFP4A16")),
    ("llama", "MXFP4A16", preset("MXFP4A16")),
    ("llama", "mixed groups", MIXED),
    ("llama", "FP8 (static input scale)", preset("FP8")),
    ("llama", "INT8 static, asymmetric input", STATIC_INT8),
    ("qwen2", "W8A16", preset("W8A16")),
    ("qwen2", "FP8_DYNAMIC, down_proj ignored", preset("FP8_DYNAMIC", '[lm_head, "re:.*down_proj"]')),
    ("qwen3", "W4A16, head quantized", preset("W4A16", "[]")),
    ("qwen3", "MXFP8A16", preset("MXFP8A16")),
    ("gemma3_text", "W4A16 (tied head kept)", preset("W4A16")),
    ("gemma3_text", "W8A8 (tied head quantized)", preset("W8A8", "[]")),
    ("gpt2", "W8A8 (only the tied head is Linear)", preset("W8A8", "[]")),
    # oneshot splits the fused experts into per-expert Linear layers (linearize_moe) before any
    # modifier: `Linear` quantizes every expert, saved under its per-expert name; opscope
    # projects on the same view (linearize.h).
    ("qwen3_moe", "W4A16, experts linearized", preset("W4A16")),
    ("qwen3_moe", "W4A16 on the attention",
     modifier('targets: ["re:.*self_attn\\\\..*_proj$"]\nscheme: W4A16')),
]


def tensor_bytes(folder) -> int:
    """The bytes of every tensor in the checkpoint's safetensors files, from their headers."""
    sizes = {"BF16": 2, "F16": 2, "F32": 4, "F64": 8, "I64": 8, "I32": 4, "I16": 2, "I8": 1,
             "U8": 1, "BOOL": 1, "F8_E4M3": 1, "F8_E5M2": 1, "F8_E8M0": 1}
    total = 0
    files = [f for f in os.listdir(folder) if f.endswith(".safetensors")]
    assert files, f"no safetensors in {folder}"
    for name in files:
        with open(os.path.join(folder, name), "rb") as f:
            header = json.loads(f.read(struct.unpack("<Q", f.read(8))[0]))
        for key, t in header.items():
            if key == "__metadata__":
                continue
            elements = 1
            for d in t["shape"]:
                elements *= d
            assert elements * sizes[t["dtype"]] == t["data_offsets"][1] - t["data_offsets"][0]
            total += elements * sizes[t["dtype"]]
    return total


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    root = tmp_path_factory.mktemp("llmcompressor_size")
    # Private caches: nothing looks anything up in the user's hub cache or opscope's.
    os.environ["HF_HOME"] = str(root / "hf")
    return root


def opscope_size(workspace, config, base) -> dict:
    env = dict(os.environ, HF_HOME=str(workspace / "hf"), XDG_CACHE_HOME=str(workspace / "cache"),
               VIRTUAL_ENV=sys.prefix)
    result = subprocess.run(
        [os.environ["OPSCOPE_BIN"], "explain", "-q", str(config), "--model",
         f"hf:{base / 'config.json'}", "--json"],
        env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    size = json.loads(result.stdout)["size"]
    assert "unavailable" not in size, size
    return size


def base_checkpoint(workspace, arch):
    folder = workspace / "base" / arch
    if not folder.exists():
        make_config, dtype = ARCHITECTURES[arch]
        torch.manual_seed(0)
        AutoModelForCausalLM.from_config(make_config(), dtype=dtype).save_pretrained(folder)
    return folder


def calibration() -> dict:
    """oneshot's dataset arguments: two tokenized samples and a word-level tokenizer built in
    memory (oneshot requires a processor whenever a dataset is given)."""
    from datasets import Dataset
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel
    from transformers import PreTrainedTokenizerFast

    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=Tokenizer(WordLevel({"<unk>": 0, "a": 1}, unk_token="<unk>")),
        unk_token="<unk>", pad_token="<unk>")
    samples = Dataset.from_dict({"input_ids": [[1, 2, 3, 4, 5, 6, 7, 8]] * 2,
                                 "attention_mask": [[1] * 8] * 2})
    return dict(dataset=samples, processor=tokenizer, num_calibration_samples=2,
                max_seq_length=8)


def test_projected_size_is_within_one_percent_of_the_saved_checkpoint(workspace):
    from llmcompressor import oneshot

    rows, failures = [], []
    started = time.time()
    for i, (arch, label, recipe_text) in enumerate(CASES):
        base = base_checkpoint(workspace, arch)
        recipe = workspace / f"recipe_{i}.yaml"
        recipe.write_text(recipe_text)
        model = AutoModelForCausalLM.from_pretrained(base, dtype="auto")
        if label in CALIBRATED:
            oneshot(model=model, recipe=str(recipe), **calibration())
        else:
            oneshot(model=model, recipe=str(recipe))
        out = workspace / f"saved_{i}"
        model.save_pretrained(out, save_compressed=True)
        saved = tensor_bytes(out)
        from_recipe = opscope_size(workspace, recipe, base)
        from_checkpoint = opscope_size(workspace, out / "config.json", base)
        before = tensor_bytes(base)
        for size in (from_recipe, from_checkpoint):
            assert size["caveat"] is None, (arch, label, size)
        assert from_recipe["bytes"]["before"] == before, (arch, label, before, from_recipe)
        for route, size in (("recipe", from_recipe), ("config.json", from_checkpoint)):
            projected = size["bytes"]["after"]
            diff = (projected - saved) / saved
            rows.append((arch, label, route, saved, projected, diff, size["format"]))
            if abs(diff) > TOLERANCE:
                failures.append(rows[-1])
        shutil.rmtree(out)
    print(f"\n{'model':12} {'scheme':38} {'from':11} {'saved B':>10} {'projected B':>12} "
          f"{'diff %':>8}  format")
    for arch, label, route, saved, projected, diff, fmt in rows:
        print(f"{arch:12} {label:38} {route:11} {saved:10d} {projected:12d} {100 * diff:8.3f}  {fmt}")
    print(f"{len(CASES)} checkpoints saved and projected in {time.time() - started:.1f} s")
    assert not failures, failures
