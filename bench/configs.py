"""The documents the editor benchmarks type into, generated from a model's real names:
a quantizer config with exactly N patterns (module names, regexes, module types, op types,
op names, a few that match nothing), the cursor positions for completion and hover, and, for
the yaml-language-server peer, a JSON Schema that enumerates the same names as allowed keys.
Pure Python: no torch."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass


@dataclass
class EditorDocument:
    text: str             # the full config, N patterns
    pattern_count: int
    completion_text: str  # the config plus one half-typed module-name key
    completion_position: dict  # LSP position at the end of that key
    completion_prefix: str
    hover_position: dict  # inside an existing module-name key that matches a module
    hover_key: str


def _quoted(pattern: str) -> str:
    """Regex keys are single-quoted so YAML never reads `[`, `*`, `|` as syntax."""
    if re.fullmatch(r"[A-Za-z0-9_.]+", pattern):
        return pattern
    return "'" + pattern.replace("'", "''") + "'"


def _spread(items: list[str], count: int) -> list[str]:
    """`count` items evenly spaced over the list (all of them if it is short)."""
    if len(items) <= count:
        return list(items)
    step = len(items) / count
    return [items[int(i * step)] for i in range(count)]


def _module_patterns(module_names: list[str], count: int) -> list[str]:
    """Exact names, regexes over them, and three typos: `count` unique patterns."""
    patterns: list[str] = []
    seen: set[str] = set()

    def add(pattern: str) -> None:
        if pattern not in seen and len(patterns) < count:
            seen.add(pattern)
            patterns.append(pattern)

    for typo in ("encoderr.layer.0", "h.0.atn.qkv", "linaer1"):  # diagnostics to find
        add(typo)
    exact = _spread(module_names, max(1, count * 3 // 5))
    for name in exact:
        add(name)
    for name in _spread(module_names, count):
        parts = name.split(".")
        if len(parts) > 1:
            add(re.escape(".".join(parts[:-1])) + r"\..*")  # everything under the parent
        add(re.sub(r"\d+", "[0-9]+", re.escape(name)))  # the same layer at any index
    fill = 0
    while len(patterns) < count:  # tiny models: alternations keep keys unique
        name = module_names[fill % len(module_names)]
        add(f"{re.escape(name)}|unused_{fill}")
        fill += 1
    return patterns


def quantizer_config(names: dict, pattern_count: int = 100) -> EditorDocument:
    """A `quantization_config` with exactly `pattern_count` pattern keys."""
    op_types = names["op_types"][:5]
    op_names = _spread(names["op_names"], 20)
    module_types = names["module_types"][:10]
    nested = 10  # module-name entries that carry an op_type_config and an op_name_config
    module_count = pattern_count - len(op_types) - len(op_names) - len(module_types) - 2 * nested
    module_patterns = _module_patterns(names["module_names"], module_count)

    lines = ["quantization_config:", "  module_name_configs:"]
    hover_line = hover_key = None
    for i, pattern in enumerate(module_patterns):
        if hover_line is None and pattern in names["module_names"]:
            hover_line, hover_key = len(lines), pattern
        if i < nested:
            lines.append(f"    {_quoted(pattern)}:")
            lines.append("      op_type_config:")
            lines.append(f"        {names['op_types'][i % len(names['op_types'])]}: null")
            lines.append("      op_name_config:")
            lines.append(f"        {_quoted(names['op_names'][i * 7 % len(names['op_names'])])}: null")
        else:
            lines.append(f"    {_quoted(pattern)}: null")
    lines.append("  module_type_configs:")
    lines += [f"    {kind}: null" for kind in module_types]
    lines.append("  global_config:")
    lines.append("    op_type_config:")
    lines += [f"      {kind}: null" for kind in op_types]
    lines.append("    op_name_config:")
    lines += [f"      {_quoted(name)}: null" for name in op_names]
    count = len(module_patterns) + 2 * nested + len(module_types) + len(op_types) + len(op_names)
    text = "\n".join(lines) + "\n"

    # Completion: the first two characters of a new module-name key (before
    # module_type_configs), the request an editor sends as the user starts typing; it matches
    # the most names, so it is the heavy case.
    middle = names["module_names"][len(names["module_names"]) // 4:][:len(names["module_names"]) // 2]
    target = max(middle or names["module_names"], key=lambda name: (name.count("."), len(name)))
    prefix = target[:2]
    insert_at = lines.index("  module_type_configs:")
    typed = lines[:insert_at] + [f"    {prefix}"] + lines[insert_at:]
    if hover_line is None:
        hover_line, hover_key = 2, module_patterns[0]
    return EditorDocument(
        text=text,
        pattern_count=count,
        completion_text="\n".join(typed) + "\n",
        completion_position={"line": insert_at, "character": 4 + len(prefix)},
        completion_prefix=prefix,
        hover_position={"line": hover_line, "character": 4 + len(hover_key) // 2},
        hover_key=hover_key,
    )


@dataclass
class SchemaDocument:
    """The editor document with a spec being typed under `global_config: op_state_spec: weight:`
    (issue 11): coreai-opt's own models answer there, not the model's names."""
    key_text: str          # an empty line under `weight:` (key completion)
    key_position: dict
    value_text: str        # `dtype: ` (value completion)
    value_position: dict
    hover_text: str        # a written spec; hover on its `qscheme` key
    hover_position: dict
    errors_text: str       # a misspelt field, a wrong dtype, a misspelt granularity type


def schema_document(doc: EditorDocument) -> SchemaDocument:
    base = doc.text.rstrip("\n").split("\n")
    head = base + ["    op_state_spec:", "      weight:", "        qscheme: symmetric"]
    at = len(head)
    spec = "        granularity: {type: per_channel, axis: 0}"
    return SchemaDocument(
        key_text="\n".join(head + ["        ", spec]) + "\n",
        key_position={"line": at, "character": 8},
        value_text="\n".join(head + ["        dtype: ", spec]) + "\n",
        value_position={"line": at, "character": 15},
        hover_text="\n".join(head + ["        dtype: int4", spec]) + "\n",
        hover_position={"line": at - 1, "character": 10},
        errors_text="\n".join(base + ["    op_state_specs:", "      weight: {dtype: int8}",
                                      "    op_input_spec:",
                                      "      '*': {dtype: int9, granularity: {type: per_chanel}}"])
        + "\n",
    )


def json_schema(names: dict) -> dict:
    """The schema a yaml-language-server user would generate: every real name an allowed key."""

    def keys(values: list[str], description: str) -> dict:
        return {
            "type": "object",
            "properties": {v: {"$ref": "#/definitions/entry", "description": description}
                           for v in values},
            "additionalProperties": False,
        }

    module_scope = {
        "type": ["object", "null"],
        "properties": {
            "op_type_config": keys(names["op_types"], "op type"),
            "op_name_config": keys(names["op_names"], "op name"),
            "op_input_spec": {}, "op_output_spec": {}, "op_state_spec": {},
        },
    }
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"entry": {"type": ["object", "null"]}, "module_scope": module_scope},
        "type": "object",
        "properties": {
            "quantization_config": {
                "type": "object",
                "properties": {
                    "global_config": {"$ref": "#/definitions/module_scope"},
                    "module_name_configs": {
                        "type": "object",
                        "properties": {n: {"$ref": "#/definitions/module_scope",
                                           "description": "module"}
                                       for n in names["module_names"]},
                        "additionalProperties": False,
                    },
                    "module_type_configs": {
                        "type": "object",
                        "properties": {t: {"$ref": "#/definitions/module_scope",
                                           "description": "module type"}
                                       for t in names["module_types"]},
                        "additionalProperties": False,
                    },
                },
            },
        },
    }


def write_json_schema(names: dict, path: str) -> None:
    with open(path, "w") as out:
        json.dump(json_schema(names), out)
