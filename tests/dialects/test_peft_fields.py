"""PEFT judges which keywords its tuner config classes take (issue 26: the config class's schema).

- The built-in table (core/dialects/peft/data/peft-fields.json) is what scripts/peft_fields.py
  writes from the installed PEFT: a PEFT upgrade that adds or renames a field fails here, with
  the command that rewrites it.
- For each class opscope reads, its real fields and near misses of them (a letter dropped,
  doubled or swapped, a plural added or removed, another class's field) are written as keywords
  of calls in one script; `opscope check` reports `unknown-field` on a call exactly when calling
  the class with that keyword raises PEFT's TypeError ("unexpected keyword argument").
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "scripts"))

import peft  # noqa: E402
import peft_fields  # noqa: E402

BUILTIN = os.path.join(REPO, "core", "dialects", "peft", "data", "peft-fields.json")
KEYS_PER_CLASS = 120


def test_the_builtin_table_is_the_installed_pefts():
    with open(BUILTIN, encoding="utf-8") as f:
        builtin = json.load(f)
    assert builtin == peft_fields.dump(), (
        f"PEFT {peft.__version__} declares other fields than the built-in table "
        f"({builtin['peft_version']}): run `.venv/bin/python scripts/peft_fields.py > {BUILTIN}`")


def near_misses(name: str, rng: random.Random) -> list[str]:
    out = {name + "s", name[:-1] if name.endswith("s") else name + "_"}
    i = rng.randrange(len(name))
    out.add(name[:i] + name[i + 1:])          # dropped
    out.add(name[:i] + name[i] + name[i:])    # doubled
    if len(name) > 2:
        j = rng.randrange(len(name) - 1)
        out.add(name[:j] + name[j + 1] + name[j] + name[j + 2:])  # swapped
    return [k for k in out if k.isidentifier() and not k.startswith("__")]


def raises_unexpected_keyword(cls, key: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            cls(**{key: None})
        except TypeError as e:
            return "unexpected keyword argument" in str(e)
        except Exception:  # a real field refusing None: PEFT took the keyword
            return False
    return False


def test_opscope_flags_exactly_the_keywords_peft_refuses(tmp_path):
    rng = random.Random(26)
    with open(BUILTIN, encoding="utf-8") as f:
        classes = json.load(f)["classes"]
    every_field = sorted({f["name"] for fields in classes.values() for f in fields})
    cases = []  # (class, key)
    for name, fields in classes.items():
        keys = {f["name"] for f in fields}
        for f in fields:
            keys.update(near_misses(f["name"], rng))
        keys.update(rng.sample(every_field, 15))  # another class's field
        keys = sorted(keys)
        rng.shuffle(keys)
        cases += [(name, k) for k in keys[:KEYS_PER_CLASS]]
    lines = ["from peft import " + ", ".join(sorted(classes))]
    first_line = len(lines)
    lines += [f"c{i} = {cls}({key}=None)" for i, (cls, key) in enumerate(cases)]
    script = tmp_path / "train.py"
    script.write_text("\n".join(lines) + "\n")
    result = subprocess.run([os.environ["OPSCOPE_BIN"], "check", "--format", "json", str(script)],
                            capture_output=True, text=True, timeout=120)
    flagged = set()
    for line in result.stdout.splitlines():
        if line.startswith("{"):
            d = json.loads(line)
            if d["code"] == "unknown-field":
                flagged.add(d["range"]["start"][0] - 1 - first_line)  # 1-based lines
    assert cases, "no cases generated"
    disagreements = []
    for i, (cls, key) in enumerate(cases):
        peft_refuses = raises_unexpected_keyword(getattr(peft, cls), key)
        if peft_refuses != (i in flagged):
            disagreements.append(f"{cls}({key}=...): PEFT refuses={peft_refuses}, "
                                 f"opscope flags={i in flagged}")
    assert not disagreements, f"{len(disagreements)} of {len(cases)}:\n" + "\n".join(
        disagreements[:20]) + "\n" + result.stderr[-2000:]
    assert flagged, "no near miss was refused: the generator made no unknown keyword"
