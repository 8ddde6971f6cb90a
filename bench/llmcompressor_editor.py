"""Editor latency on an llm-compressor oneshot script over a Llama-3-70B-shaped model (issue 27):
the model is a Hugging Face id whose config.json sits in a private hub cache (no weights, no
opscope.yaml), so the server finds it, exports it weightless and indexes it in the background.

  .venv/bin/python bench/llmcompressor_editor.py --build-dir build [--callgrind]

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
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hub_editor import LEAVES, MODEL_ID, EditorBench, arguments, run  # noqa: E402


def script(entries: int, rng: random.Random) -> str:
    """A oneshot script whose GPTQModifier ignores `entries` modules: full names of real modules,
    `re:` patterns, class names, and one in ten misspelt."""
    names = []
    for i in range(entries):
        layer, leaf = rng.randrange(80), rng.choice(LEAVES)
        block = "self_attn" if leaf in LEAVES[:4] else "mlp"
        kind = i % 10
        if kind == 0:
            names.append(f"model.layers.{layer}.{block}.{leaf}x")  # matches nothing
        elif kind < 3:
            names.append(f"re:.*layers\\.{layer}\\.{block}\\.{leaf}$")
        elif kind == 3:
            names.append("LlamaRMSNorm")
        else:
            names.append(f"model.layers.{layer}.{block}.{leaf}")
    listed = ",\n        ".join(json.dumps(n) for n in names)
    return ("from llmcompressor import oneshot\n"
            "from llmcompressor.modifiers.quantization import GPTQModifier\n\n"
            "recipe = GPTQModifier(\n    targets=\"Linear\",\n    scheme=\"W4A16\",\n"
            f"    ignore=[\n        {listed},\n    ],\n    dampening_frac=0.01,\n)\n"
            f'oneshot(model="{MODEL_ID}", recipe=recipe)\n')


def main() -> int:
    args = arguments(__doc__, seed=27)
    rng = random.Random(args.seed)
    bench = EditorBench(
        title=f"GPTQModifier with {args.entries} ignore entries", filename="quantize.py",
        typed=3,
        edit=lambda text, version: text.replace("dampening_frac=0.0",
                                                f"dampening_frac=0.0{version}", 1))
    return run(args, bench, script(args.entries, rng), rng)


if __name__ == "__main__":
    raise SystemExit(main())
