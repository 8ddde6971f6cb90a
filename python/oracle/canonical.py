"""One canonical, JSON-able structure for "what a user sees in the summary tree", built
either from coreai-opt's `ModelInspector(...).summary` or from an opscope index file, so the
two can be compared field by field.

    {"model_type": str,
     "ops": [{"name", "type", "module_stack": [[name, type]...],
              "inputs": [[producer, slot|None, is_state]...],
              "outputs": [[slot, [consumer...]]...],
              "source": [file basename, line] | None}...],      # all_ops() order
     "modules": [{"name", "type", "children": [name...], "ops": [name...],
                  "inputs": [[spec, [[op, slot]...]]...],
                  "outputs": [[spec, [op, slot]]...]}...]}      # tree (pre-)order

Normalisations (things the summary never shows): a state input's slot is None (graph mode
records 0, eager mode None); an op type coreai-opt could not read (None) is "".
States are compared by their full name (`linear1.weight`), stricter than the displayed
last component.
"""

from __future__ import annotations

import json
import os

# Same markers as coreai_opt/inspection/_formatting.py: frames inside torch are skipped
# when choosing the source line shown for an op.
FRAMEWORK_PATH_MARKERS = ("torch/nn/modules/", "torch/nn/functional", "torch/_")

COMPRESSOR_BITS = {None: 0, "none": 0, "quantizer": 1, "kmeanspalettizer": 2, "kmeans": 2,
                   "palettizer": 2, "kmeans_palettizer": 2, "magnitudepruner": 4, "pruner": 4,
                   "magnitude_pruner": 4}
# The index's names for compressors (index.cpp to_string), keys of "compressor_types".
COMPRESSOR_NAMES = {1: "quantizer", 2: "kmeans_palettizer", 4: "magnitude_pruner"}


def compressor_bit(compressor) -> int:
    """0 (no filter), or the index's bit for a compressor given as class, name or int."""
    if isinstance(compressor, int):
        return compressor
    if isinstance(compressor, type):
        compressor = compressor.__name__
    key = None if compressor is None else str(compressor).lower()
    if key not in COMPRESSOR_BITS:
        raise ValueError(f"unknown compressor {compressor!r}")
    return COMPRESSOR_BITS[key]


def _source(frames) -> list | None:
    """[basename, line] of the innermost frame outside torch, like format_summary shows.
    FX-generated code is `<eval_with_key>.N` with N counting per process: kept without N."""
    for filename, line in reversed(frames):
        if not any(marker in filename for marker in FRAMEWORK_PATH_MARKERS):
            name = os.path.basename(filename)
            if name.startswith("<eval_with_key>"):
                name = "<eval_with_key>"
            return [name, int(line)]
    return None


# ---------------------------------------------------------------- from coreai-opt

def _summary_op(op) -> dict:
    return {
        "name": op.op_name,
        "type": op.op_type or "",
        "module_stack": [[c.module_name, c.module_type] for c in op.module_stack],
        "inputs": [
            [edge.op_name, None if edge.is_state else edge.output_idx, bool(edge.is_state)]
            for edge in op.inputs
        ],
        "outputs": [
            [int(slot), [consumer.op_name for consumer in consumers]]
            for slot, consumers in sorted(op.outputs.items())
        ],
        "source": _source([(f.filename, f.lineno) for f in op.source_frames]),
    }


def _summary_module(module) -> dict:
    return {
        "name": module.module_name,
        "type": module.module_type,
        "children": [child.module_name for child in module.child_modules.values()],
        "ops": [op.op_name for op in module.ops],
        "inputs": [
            [int(spec), [[edge.op.op_name, int(edge.index)] for edge in edges]]
            for spec, edges in sorted(module.input_ops.items())
        ],
        "outputs": [
            [int(spec), [edge.op.op_name, int(edge.index)]]
            for spec, edge in sorted(module.output_ops.items())
        ],
    }


def from_summary(summary) -> dict:
    """Canonical form of a coreai-opt ModelSummary (`ModelInspector(...).summary`)."""
    root = summary.model
    return {
        "model_type": root.module_type,
        "ops": [_summary_op(op) for op in root.all_ops()],
        "modules": [_summary_module(module) for module in root.modules()],
    }


# ---------------------------------------------------------------- from an opscope index

def load_index(path: str) -> dict:
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if doc.get("format") != "opscope-index":
        raise ValueError(f"{path}: not an opscope index file")
    return doc


def _preorder(modules: list[dict]):
    """Module indices in tree order (a module, then each child's subtree), like
    ModuleInfo.modules()."""
    stack = [0]
    while stack:
        position = stack.pop()
        yield position
        stack.extend(reversed(modules[position]["children"]))


def _index_op(op: dict, renamed_types: dict) -> dict:
    return {
        "name": op["name"],
        "type": renamed_types.get(op["name"], op["type"]) or "",
        "module_stack": [[name, type_] for name, type_ in op["stack"]],
        "inputs": [
            [e["producer"], None if e.get("state") else e.get("slot"), bool(e.get("state"))]
            for e in op["inputs"]
        ],
        "outputs": [[int(slot), list(consumers)] for slot, consumers in sorted(
            op["outputs"], key=lambda pair: pair[0])],
        "source": _source([(frame[0], frame[1]) for frame in op["source"]]),
    }


def from_index(index, compressor=None) -> dict:
    """Canonical form of an opscope index (a path or the parsed JSON), as the C++ side shows
    it for `compressor`: ops the compressor does not register vanish from the module tree
    and from all_ops(), but keep their place in other ops' edges and module boundaries."""
    doc = load_index(index) if isinstance(index, (str, os.PathLike)) else index
    bit = compressor_bit(compressor)
    ops, modules = doc["ops"], doc["modules"]
    # Where a compressor's registry files an op under another type (Index::type_for).
    compressor_name = COMPRESSOR_NAMES.get(bit)
    renamed_types = {
        op_name: types[compressor_name]
        for op_name, types in doc.get("compressor_types", {}).items()
        if compressor_name in types
    }

    def shown(op: dict) -> bool:
        return bit == 0 or (int(op["compressors"]) & bit) != 0

    canonical_ops, canonical_modules = [], []
    for position in _preorder(modules):
        module = modules[position]
        own = [ops[i] for i in module["ops"] if shown(ops[i])]
        canonical_ops.extend(_index_op(op, renamed_types) for op in own)
        canonical_modules.append({
            "name": module["name"],
            "type": module["type"],
            "children": [modules[c]["name"] for c in module["children"]],
            "ops": [op["name"] for op in own],
            "inputs": [[int(spec), [[op, int(slot)] for op, slot in edges]]
                       for spec, edges in sorted(module["inputs"], key=lambda p: p[0])],
            "outputs": [[int(spec), [edge[0], int(edge[1])]]
                        for spec, edge in sorted(module["outputs"], key=lambda p: p[0])],
        })
    return {"model_type": modules[0]["type"], "ops": canonical_ops, "modules": canonical_modules}


# ---------------------------------------------------------------- comparison

def _short(value) -> str:
    text = json.dumps(value)
    return text if len(text) <= 300 else text[:297] + "..."


def _diff_sequence(kind: str, a: list[dict], b: list[dict], a_label: str, b_label: str,
                   out: list[str]) -> None:
    a_names = [item["name"] for item in a]
    b_names = [item["name"] for item in b]
    if a_names != b_names:
        missing = [n for n in a_names if n not in set(b_names)]
        extra = [n for n in b_names if n not in set(a_names)]
        first = next((i for i, (x, y) in enumerate(zip(a_names, b_names)) if x != y),
                     min(len(a_names), len(b_names)))
        out.append(f"{kind} order differs at position {first}: {a_label} has "
                   f"{a_names[first:first + 4]}, {b_label} has {b_names[first:first + 4]}")
        if missing:
            out.append(f"  {kind} only in {a_label} ({len(missing)}): {_short(missing[:12])}")
        if extra:
            out.append(f"  {kind} only in {b_label} ({len(extra)}): {_short(extra[:12])}")
    b_by_name = {item["name"]: item for item in b}
    for item in a:
        other = b_by_name.get(item["name"])
        if other is None:
            continue
        for key in item:
            if item[key] != other.get(key):
                label = f"{kind[:-1]} {item['name']!r}" if item["name"] else "root module"
                out.append(f"{label}: {key}\n    {a_label}: {_short(item[key])}\n"
                           f"    {b_label}: {_short(other.get(key))}")


def diff(a: dict, b: dict, a_label: str = "coreai-opt", b_label: str = "opscope",
         limit: int = 25) -> list[str]:
    """Readable differences between two canonical forms, first ones first (empty = equal)."""
    out: list[str] = []
    if a.get("model_type") != b.get("model_type"):
        out.append(f"model type: {a_label} {a.get('model_type')!r}, "
                   f"{b_label} {b.get('model_type')!r}")
    _diff_sequence("modules", a["modules"], b["modules"], a_label, b_label, out)
    _diff_sequence("ops", a["ops"], b["ops"], a_label, b_label, out)
    if len(out) > limit:
        out = out[:limit] + [f"... and {len(out) - limit} more differences"]
    return out


def format_diff(a: dict, b: dict, **kwargs) -> str:
    lines = diff(a, b, **kwargs)
    return "\n".join(lines) if lines else "(identical)"
