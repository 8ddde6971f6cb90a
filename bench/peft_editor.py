"""Editor latency on a LoRA training script over a Llama-3-70B-shaped base model (issue 26):
the model is a Hugging Face id whose config.json sits in a private hub cache (no weights, no
opscope.yaml), so the server finds it, exports it weightless and indexes it in the background.

  .venv/bin/python bench/peft_editor.py --build-dir build [--callgrind]

Prints, through the real `opscope lsp` (bench/hub_editor.py):
  open cold   didOpen -> first diagnostics that know the model (export + index, nothing cached)
  open warm   the same in a new server with opscope's cache filled (the index is read)
  completion  completion inside a target string (p50 / p99)
  hover       hover on a target entry (p50 / p99)
  check       didChange of a 100-entry target list -> publishDiagnostics, minus the debounce
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
    """A training script whose LoraConfig lists `entries` targets: full names of real modules,
    leaf names, and one in ten misspelt."""
    names = []
    for i in range(entries):
        layer, leaf = rng.randrange(80), rng.choice(LEAVES)
        kind = i % 10
        if kind == 0:
            names.append(leaf + "x")  # matches nothing
        elif kind < 4:
            names.append(leaf)
        else:
            attn = "self_attn" if leaf in LEAVES[:4] else "mlp"
            names.append(f"model.layers.{layer}.{attn}.{leaf}")
    listed = ",\n        ".join(json.dumps(n) for n in names)
    return ("from peft import LoraConfig\nfrom transformers import AutoModelForCausalLM\n\n"
            f'model = AutoModelForCausalLM.from_pretrained("{MODEL_ID}")\n'
            "config = LoraConfig(\n    r=16,\n    target_modules=[\n        "
            f"{listed},\n    ],\n)\n")


def main() -> int:
    args = arguments(__doc__, seed=26)
    rng = random.Random(args.seed)
    bench = EditorBench(title=f"LoraConfig with {args.entries} target entries",
                        filename="train.py", typed=2, hover_required=False,
                        edit=lambda text, version: text.replace("r=16", f"r={16 + version}"))
    return run(args, bench, script(args.entries, rng), rng)


if __name__ == "__main__":
    raise SystemExit(main())
