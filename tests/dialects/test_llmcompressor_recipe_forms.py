"""llm-compressor's recipe reader is the judge of where a recipe's modifiers must be written.

llm-compressor 0.14 (Recipe.from_dict) reads modifiers only under a root key ending in `_stage`
and, in it, a key ending in `_modifiers`; a modifier anywhere else (at the root, right under a
stage, under a root group) is skipped without a word, and oneshot saves the model unquantized.
Thousands of generated recipe texts in every form (staged, flat, two-level, root group, mixed,
several stages, near-miss key names, YAML and JSON) are read by Recipe.create_instance and by
opscope's reader (llmcompressor_judge --forms): the classes of the modifiers applied, in order,
must agree, and every other modifier opscope reads must be said to be never applied.
"""

from __future__ import annotations

import json
import logging
import os
import random
import subprocess
import warnings

import yaml

warnings.filterwarnings("ignore")
from loguru import logger as loguru_logger  # noqa: E402

loguru_logger.remove()
logging.getLogger("compressed_tensors").setLevel(logging.ERROR)

from llmcompressor.recipe import Recipe  # noqa: E402

JUDGE = os.environ["LLMCOMPRESSOR_JUDGE"]
RECIPES = int(os.environ.get("LLMCOMPRESSOR_FORMS", "3000"))

# Bodies llm-compressor builds without a model (AWQ is left out: it must precede a quantizing
# modifier, which the generator does not arrange).
BODIES = {
    "QuantizationModifier": {"targets": ["Linear"], "scheme": "W4A16", "ignore": ["lm_head"]},
    "GPTQModifier": {"targets": ["Linear"], "scheme": "W8A8"},
    "SmoothQuantModifier": {"smoothing_strength": 0.8},
    "SparseGPTModifier": {"sparsity": 0.5},
}
# Keys that are and are not a stage / a modifier group, near misses included.
STAGES = ["quant_stage", "sparsity_stage", "_stage", "oneshot_stage", "quant", "stage_0",
          "quant_stage_0", "quant_modifiers", "QUANT_STAGE"]
GROUPS = ["quant_modifiers", "pruning_modifiers", "_modifiers", "modifiers", "quant",
          "quant_modifier", "quant_stage", "Quant_Modifiers"]


def _modifiers(rng: random.Random) -> dict:
    names = rng.sample(list(BODIES), rng.randint(1, 2))
    return {n: dict(BODIES[n]) for n in names}


def _level(rng: random.Random, depth: int) -> dict:
    """A map holding modifiers and/or nested maps, `depth` levels below the root."""
    out: dict = {}
    for _ in range(rng.randint(1, 3)):
        choice = rng.random()
        if depth >= 2 or choice < 0.35:
            out.update(_modifiers(rng))
        else:
            keys = STAGES if depth == 0 else GROUPS
            out[rng.choice(keys)] = _level(rng, depth + 1)
    return out


def recipe_text(rng: random.Random) -> str:
    form = rng.choice(["staged", "flat", "two-level", "root-group", "mixed", "stages"])
    if form == "staged":
        recipe = {rng.choice(STAGES[:4]): {rng.choice(GROUPS[:3]): _modifiers(rng)}}
    elif form == "flat":
        recipe = _modifiers(rng)
    elif form == "two-level":
        recipe = {rng.choice(STAGES): _modifiers(rng)}
    elif form == "root-group":
        recipe = {rng.choice(GROUPS): _modifiers(rng)}
    elif form == "stages":
        recipe = {f"s{i}_stage": {f"g{i}_modifiers": _modifiers(rng)}
                  for i in range(rng.randint(2, 3))}
    else:
        recipe = _level(rng, 0)
    if rng.random() < 0.2:
        recipe = {"args": {"n": 1}, **recipe}
    if rng.random() < 0.2:
        return json.dumps(recipe, indent=rng.choice([None, 2]))
    return yaml.safe_dump(recipe, sort_keys=False, default_flow_style=rng.random() < 0.1)


def written(text: str) -> int:
    """How many modifier keys the text holds, at any level."""
    def count(node) -> int:
        if not isinstance(node, dict):
            return 0
        return sum((k in BODIES) + count(v) for k, v in node.items())
    return count(yaml.safe_load(text))


def test_opscope_reads_the_modifiers_llm_compressor_applies(tmp_path):
    rng = random.Random(27)
    texts = list(dict.fromkeys(recipe_text(rng) for _ in range(RECIPES)))
    lines = tmp_path / "recipes.jsonl"
    lines.write_text("".join(json.dumps(t) + "\n" for t in texts))
    out = subprocess.run([JUDGE, "--forms", str(lines)], check=True, capture_output=True,
                         text=True)
    said = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(said) == len(texts)
    disagree, none_applied, some_skipped = [], 0, 0
    for text, ours in zip(texts, said):
        theirs = [type(m).__name__ for m in Recipe.create_instance(text).modifiers]
        none_applied += not theirs
        some_skipped += written(text) > len(theirs)
        if ours["applied"] != theirs or ours["not_read"] != written(text) - len(theirs):
            disagree.append((text, ours, theirs))
    print(f"\n{len(texts)} recipe texts: {len(texts) - len(disagree)} agree; llm-compressor "
          f"applies nothing in {none_applied}, skips some modifier in {some_skipped}")
    assert not disagree, disagree[:3]
    # The generator reaches every case: all read, some skipped, none read.
    assert none_applied > 100 and some_skipped - none_applied > 50
    assert len(texts) - some_skipped > 100
