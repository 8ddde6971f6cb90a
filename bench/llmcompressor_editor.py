"""Editor latency on an llm-compressor oneshot script over a Llama-3-70B-shaped model (issue 27):
the model is a Hugging Face id whose config.json sits in a private hub cache (no weights, no
opscope.yaml), so the server finds it, exports it weightless and indexes it in the background.

  .venv/bin/python bench/llmcompressor_editor.py --build-dir build [--callgrind] [--moe]

--moe: a Qwen3-30B-A3B-shaped MoE instead (48 layers x 128 fused experts, which the dialect sees
split into per-expert Linear layers as oneshot's linearize_moe splits them: 25,255 modules), the
ignore entries naming experts.

Prints, through the real `opscope lsp` (bench/hub_editor.py):
  open cold   didOpen -> first diagnostics that know the model (export + index, nothing cached)
  open warm   the same in a new server with opscope's cache filled (the index is read)
  completion  completion inside an ignore entry, after its first two characters (p50 / p99)
  hover       hover on an ignore entry (p50 / p99)
  check       didChange of the script with a 100-entry ignore list -> publishDiagnostics,
              minus the debounce
or with --callgrind, instructions per request of each kind.
"""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hub_editor import (  # noqa: E402
    LEAVES,
    MODEL_ID,
    MOE_ID,
    QWEN3_30B_A3B,
    EditorBench,
    arguments,
    run,
)


def script(entries: int, rng: random.Random, moe: bool = False) -> str:
    """A oneshot script whose GPTQModifier ignores `entries` modules: full names of real modules,
    `re:` patterns, class names, and one in ten misspelt (with --moe, the MLP's are experts')."""
    names = []
    for i in range(entries):
        layer, leaf = rng.randrange(48 if moe else 80), rng.choice(LEAVES)
        block = "self_attn" if leaf in LEAVES[:4] else "mlp"
        if moe and block == "mlp":
            block = f"mlp.experts.{rng.randrange(128)}"
        kind = i % 10
        if kind == 0:
            names.append(f"model.layers.{layer}.{block}.{leaf}x")  # matches nothing
        elif kind < 3:
            names.append(f"re:.*layers\\.{layer}\\.{re.escape(block)}\\.{leaf}$")
        elif kind == 3:
            names.append("Qwen3MoeRMSNorm" if moe else "LlamaRMSNorm")
        else:
            names.append(f"model.layers.{layer}.{block}.{leaf}")
    listed = ",\n        ".join(json.dumps(n) for n in names)
    return ("from llmcompressor import oneshot\n"
            "from llmcompressor.modifiers.quantization import GPTQModifier\n\n"
            "recipe = GPTQModifier(\n    targets=\"Linear\",\n    scheme=\"W4A16\",\n"
            f"    ignore=[\n        {listed},\n    ],\n    dampening_frac=0.01,\n)\n"
            f'oneshot(model="{MOE_ID if moe else MODEL_ID}", recipe=recipe)\n')


def main() -> int:
    args = arguments(__doc__, seed=27, moe=True)
    rng = random.Random(args.seed)
    model = dict(model_id=MOE_ID, model_config=QWEN3_30B_A3B,
                 model_title="Qwen3-30B-A3B-shaped MoE") if args.moe else {}
    bench = EditorBench(
        title=f"GPTQModifier with {args.entries} ignore entries", filename="quantize.py",
        typed=3,
        edit=lambda text, version: text.replace("dampening_frac=0.0",
                                                f"dampening_frac=0.0{version}", 1), **model)
    return run(args, bench, script(args.entries, rng, args.moe), rng)


if __name__ == "__main__":
    raise SystemExit(main())
