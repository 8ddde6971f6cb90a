"""llm-compressor's recipe reader is the judge of where a recipe's modifiers must be written.

llm-compressor 0.14 (Recipe.from_dict) reads modifiers only under a root key ending in `_stage`
and, in it, a key ending in `_modifiers`; a modifier anywhere else (at the root, right under a
stage, under a root group) is skipped without a word, and oneshot saves the model unquantized.
Thousands of generated recipe texts in every form (staged, flat, two-level, root group, mixed,
several stages, near-miss key names, YAML and JSON) are read by Recipe.create_instance and by
opscope's reader (llmcompressor_judge --forms): the classes of the modifiers applied, in order,
must agree, and every other modifier opscope reads must be said to be never applied.

The quick fix of that diagnostic is judged the same way: on every text opscope reports, its
offered fixes are applied (one a round, as a user would, as the editor's edit: lines and byte
columns) until none is left; llm-compressor must then read exactly the modifiers written (classes
and every argument, in order) and opscope must no longer report any.
"""

from __future__ import annotations

import json
import logging
import os
import random
import re
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
    return recipe_form_and_text(rng)[1]


def recipe_form_and_text(rng: random.Random) -> tuple[str, str]:
    """A recipe's text, and the form it was written in ("flat", or "two-level:<root key>")."""
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
    if form in ("two-level", "root-group"):
        form = f"{form}:{next(iter(recipe))}"
    if rng.random() < 0.2:
        recipe = {"args": {"n": 1}, **recipe}
    if rng.random() < 0.2:
        return form, json.dumps(recipe, indent=rng.choice([None, 2]))
    return form, yaml.safe_dump(recipe, sort_keys=False, default_flow_style=rng.random() < 0.1)


def written(text: str) -> int:
    """How many modifier keys the text holds, at any level."""
    def count(node) -> int:
        if not isinstance(node, dict):
            return 0
        return sum((k in BODIES) + count(v) for k, v in node.items())
    return count(yaml.safe_load(text))


def generated() -> dict[str, str]:
    """Every distinct generated text, with the form that first wrote it."""
    rng = random.Random(27)
    out: dict[str, str] = {}
    for _ in range(RECIPES):
        form, text = recipe_form_and_text(rng)
        out.setdefault(text, form)
    return out


def opscope_says(texts: list[str], tmp_path) -> list[dict]:
    lines = tmp_path / "recipes.jsonl"
    lines.write_text("".join(json.dumps(t) + "\n" for t in texts))
    out = subprocess.run([JUDGE, "--forms", str(lines)], check=True, capture_output=True,
                         text=True)
    said = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(said) == len(texts)
    return said


def test_opscope_reads_the_modifiers_llm_compressor_applies(tmp_path):
    texts = list(generated())
    said = opscope_says(texts, tmp_path)
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


def written_modifiers(text: str) -> list[tuple[str, dict]]:
    """The modifiers a text holds where opscope reads them (two levels down at most), in the
    order written, with their arguments."""
    out: list[tuple[str, dict]] = []

    def walk(node, depth):
        for key, value in node.items():
            if key in BODIES:
                out.append((key, value))
            elif isinstance(value, dict) and depth < 2:
                walk(value, depth + 1)
    walk(yaml.safe_load(text), 0)
    return out


def described(modifiers) -> list[tuple[str, dict]]:
    """Each modifier llm-compressor built: its class and every field but the group (named
    after the `*_modifiers` key, which the fix may choose)."""
    return [(type(m).__name__, m.model_dump(exclude={"group"})) for m in modifiers]


def as_llm_compressor_builds(name: str, args: dict) -> tuple[str, dict]:
    (built,) = described(Recipe.create_instance(
        yaml.safe_dump({"judge_stage": {"judge_modifiers": {name: args}}})).modifiers)
    return built


def applied_fix(text: str, fix: dict) -> str:
    """The text with one quick fix applied as an editor applies it (lines, byte columns)."""
    data = text.encode()
    starts = [0] + [i + 1 for i, b in enumerate(data) if b == ord("\n")]

    def offset(position):
        line, column = position
        assert line < len(starts) and starts[line] + column <= len(data), (text, fix)
        return starts[line] + column
    return (data[:offset(fix["start"])] + fix["new_text"].encode()
            + data[offset(fix["end"]):]).decode()


def test_the_quick_fix_makes_llm_compressor_read_the_modifiers_written(tmp_path):
    forms = generated()
    texts = [t for t, ours in zip(forms, opscope_says(list(forms), tmp_path)) if ours["not_read"]]
    fixed = list(texts)
    titles: dict[str, int] = {}
    said = opscope_says(fixed, tmp_path)
    # A round applies one fix to each text still reported (each fix takes a run of adjacent
    # modifiers, or all those under one key); a text holds at most six runs.
    for _ in range(6):
        todo = [i for i, ours in enumerate(said) if ours["fixes"]]
        if not todo:
            break
        for i in todo:
            fix = said[i]["fixes"][0]
            kind = re.sub(r"\w*_(stage|modifiers):", r"*_\1:", fix["title"])
            kind = re.sub(r" \(in \d+ groups\)$", "", kind)
            titles[kind] = titles.get(kind, 0) + 1
            fixed[i] = applied_fix(fixed[i], fix)
        said = opscope_says(fixed, tmp_path)

    builds: dict[str, tuple[str, dict]] = {}
    wrong = []
    for text, after, ours in zip(texts, fixed, said):
        written = []
        for name, args in written_modifiers(text):
            key = json.dumps([name, args], sort_keys=True)
            written.append(builds.setdefault(key, as_llm_compressor_builds(name, args)))
        read = described(Recipe.create_instance(after).modifiers)
        if ours["not_read"] or [name for name, _ in read] != ours["applied"]:
            wrong.append(("opscope still reports it, or reads it otherwise", text, after, ours))
        elif read != written:
            wrong.append(("llm-compressor reads other modifiers", text, after, read))
    print(f"\n{len(texts)} texts report recipe-not-read; after {sum(titles.values())} quick "
          f"fixes llm-compressor reads every modifier written in {len(texts) - len(wrong)}: "
          f"{dict(sorted(titles.items()))}")
    assert not wrong, wrong[:3]
    # Every kind of fix is reached: the flat form, the two-level form, the root group, a key
    # that is no stage, a stage's key that is no group.
    assert set(titles) == {"Wrap in `*_stage: *_modifiers:`", "Wrap in `*_modifiers:`",
                           "Wrap in `*_stage:`", "Move to `*_stage: *_modifiers:`",
                           "Move to `*_modifiers:`"}, titles
    assert min(titles.values()) > 20, titles
    for form in ("flat", "two-level:quant_stage", "root-group:quant_modifiers", "two-level:quant"):
        assert sum(forms[t] == form for t in texts) > 15, form
