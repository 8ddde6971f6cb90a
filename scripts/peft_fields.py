"""Writes the fields of PEFT's tuner config classes, as the installed PEFT declares them, for
opscope's built-in copy (core/dialects/peft/data/peft-fields.json): each dataclass field a class
takes as a keyword, its annotation as written and its help text. The PEFT dialect checks the keys
of a LoraConfig(...) call or an adapter_config.json against it; ctest `dialects.peft_fields` fails
when the installed PEFT declares other fields, so an upgrade says to run this again:

    .venv/bin/python scripts/peft_fields.py > core/dialects/peft/data/peft-fields.json
"""

import dataclasses
import json
import sys
import typing

# The classes the dialect reads (core/dialects/peft/src/config.cpp, kConfigClasses).
CLASSES = ["LoraConfig", "LoHaConfig", "LoKrConfig", "AdaLoraConfig", "IA3Config", "OFTConfig",
           "BOFTConfig", "VeraConfig"]
MAX_HELP = 400  # characters: a hover, not the manual


def annotation(field: dataclasses.Field) -> str:
    if isinstance(field.type, str):
        return field.type
    text = typing._type_repr(field.type) if hasattr(typing, "_type_repr") else str(field.type)
    return text.replace("typing.", "")


def fields_of(cls) -> list[dict]:
    out = []
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        help_text = " ".join(str(f.metadata.get("help", "")).split())
        if len(help_text) > MAX_HELP:
            help_text = help_text[:MAX_HELP].rsplit(" ", 1)[0] + " …"
        out.append({"name": f.name, "type": annotation(f), "help": help_text})
    return out


def dump() -> dict:
    import peft

    return {"peft_version": peft.__version__,
            "classes": {name: fields_of(getattr(peft, name)) for name in CLASSES}}


if __name__ == "__main__":
    json.dump(dump(), sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")
