"""opscope's projected checkpoint size of llm-compressor recipes at full scale (issue 27): a
Llama-3.2-1B-shaped model (its config written here, random bfloat16 weights, nothing
downloaded) saved as a base checkpoint; each recipe projected by `opscope explain --json` on the
weightless index, then run as a user runs it (from_pretrained, oneshot's data-free path,
save_pretrained(save_compressed=True)); the saved safetensors' tensor bytes printed beside the
projection. The issue's report (llm-compressor #1969) is a W4A16 Llama-3.2-1B.

  .venv/bin/python bench/llmcompressor_size.py --build-dir build

Needs about 5 GB of disk and 6 GB of memory; about 6 minutes on 2 cores. The first row's
explain time includes the weightless export and indexing of the model (once).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "dialects"))

LLAMA_3_2_1B = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 2048,
    "intermediate_size": 8192, "num_hidden_layers": 16, "num_attention_heads": 32,
    "num_key_value_heads": 8, "head_dim": 64, "vocab_size": 128256,
    "max_position_embeddings": 131072, "rms_norm_eps": 1e-05, "rope_theta": 500000.0,
    "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "tie_word_embeddings": True, "torch_dtype": "bfloat16", "bos_token_id": 128000,
    "eos_token_id": 128001,
}

RECIPES = {
    "W4A16, lm_head ignored": "scheme: W4A16\nignore: [lm_head]",
    "W4A16, lm_head quantized (untied)": "scheme: W4A16",
    "FP8_DYNAMIC, lm_head ignored": "scheme: FP8_DYNAMIC\nignore: [lm_head]",
}


def recipe_text(body: str) -> str:
    lines = ["targets: [Linear]", *body.splitlines()]
    return "quant_stage:\n  quant_modifiers:\n    QuantizationModifier:\n" + "".join(
        f"      {line}\n" for line in lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default=str(REPO / "build"))
    args = parser.parse_args()
    build = Path(args.build_dir).resolve()
    work = Path(tempfile.mkdtemp(prefix="opscope-llmcompressor-size-"))
    os.environ.update(HF_HOME=str(work / "hf"), HF_HUB_OFFLINE="1")
    env = dict(os.environ, XDG_CACHE_HOME=str(work / "cache"), VIRTUAL_ENV=sys.prefix,
               OPSCOPE_INSPECT=str(build / "opscope-inspect"))
    try:
        import torch
        from loguru import logger
        from transformers import AutoConfig, AutoModelForCausalLM

        logger.remove()
        from llmcompressor import oneshot
        from test_llmcompressor_size import tensor_bytes

        shape = work / "shape"
        shape.mkdir()
        (shape / "config.json").write_text(json.dumps(LLAMA_3_2_1B, indent=2))
        base = work / "base"
        AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(shape),
                                         dtype=torch.bfloat16).save_pretrained(base)
        print(f"base checkpoint: {tensor_bytes(base)} bytes")
        print(f"{'recipe':36} {'saved B':>14} {'projected B':>14} {'diff %':>8} "
              f"{'explain s':>9} {'save s':>7}")
        for label, body in RECIPES.items():
            recipe = work / "recipe.yaml"
            recipe.write_text(recipe_text(body))
            started = time.time()
            result = subprocess.run(
                [str(build / "opscope"), "explain", "-q", str(recipe), "--model",
                 f"hf:{base / 'config.json'}", "--json"],
                env=env, capture_output=True, text=True, check=True)
            explained = time.time() - started
            projected = json.loads(result.stdout)["size"]["bytes"]["after"]
            started = time.time()
            model = AutoModelForCausalLM.from_pretrained(base, dtype="auto")
            oneshot(model=model, recipe=str(recipe))
            out = work / "saved"
            model.save_pretrained(out, save_compressed=True)
            del model
            saved = tensor_bytes(out)
            shutil.rmtree(out)
            print(f"{label:36} {saved:14d} {projected:14d} "
                  f"{100 * (projected - saved) / saved:8.3f} {explained:9.1f} "
                  f"{time.time() - started:7.1f}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
