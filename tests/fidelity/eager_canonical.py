"""One comparable form for an eager summary, from coreai-opt's ModelInspector or from an
opscope index file, per compressor: the module tree (names, types, shown ops, boundaries)
and every shown op (type, module stack, inputs with producer and slot, outputs with
consumers, source frames). Equal forms mean `opscope summary` and coreai-opt show the same
names, types, stacks and edges."""

from __future__ import annotations

import json

# opscope's compressor names (index JSON) <-> coreai-opt classes, filled lazily.
COMPRESSORS = ("none", "quantizer", "kmeans_palettizer")
_BITS = {"none": 0, "quantizer": 1, "kmeans_palettizer": 2, "magnitude_pruner": 4}


def compressor_class(name: str):
    if name == "none":
        return None
    if name == "quantizer":
        from coreai_opt.quantization import Quantizer

        return Quantizer
    if name == "kmeans_palettizer":
        from coreai_opt.palettization import KMeansPalettizer

        return KMeansPalettizer
    raise ValueError(name)


def _module_entry(name, mtype, parent, ops, inputs, outputs):
    return {
        "name": name,
        "type": mtype,
        "parent": parent,
        "ops": ops,
        "inputs": {int(k): [tuple(e) for e in v] for k, v in sorted(inputs.items())},
        "outputs": {int(k): tuple(v) for k, v in sorted(outputs.items())},
    }


def from_oracle(summary) -> dict:
    """Canonical form of a coreai-opt ModelSummary (already filtered by its compressor)."""
    modules, ops = [], {}

    def visit(module, parent):
        modules.append(
            _module_entry(
                module.module_name,
                module.module_type,
                parent,
                [op.op_name for op in module.ops],
                {k: [(e.op.op_name, e.index) for e in v] for k, v in module.input_ops.items()},
                {k: (e.op.op_name, e.index) for k, e in module.output_ops.items()},
            )
        )
        for op in module.ops:
            ops[op.op_name] = {
                "type": op.op_type,
                "stack": [(c.module_name, c.module_type) for c in op.module_stack],
                "inputs": [(e.op_name, e.output_idx, e.is_state) for e in op.inputs],
                "outputs": {k: [c.op_name for c in v] for k, v in sorted(op.outputs.items())},
                "source": [(f.filename, f.lineno, f.function_name, f.code_context) for f in op.source_frames],
            }
        for child in module.child_modules.values():
            visit(child, module.module_name)

    visit(summary.model, None)
    return {"modules": modules, "ops": ops}


def from_index(index: dict, compressor: str) -> dict:
    """Canonical form of an opscope index file's JSON as shown with `compressor`."""
    bit = _BITS[compressor]
    all_ops = index["ops"]
    all_modules = index["modules"]

    def shown(op) -> bool:
        return op["kind"] == "call" and (bit == 0 or (op["compressors"] & bit) != 0)

    renamed = index.get("compressor_types", {})

    def op_type(op) -> str:
        if bit and (op["compressors"] & bit):
            return renamed.get(op["name"], {}).get(compressor, op["type"])
        return op["type"]

    modules, ops = [], {}

    def visit(position, parent):
        m = all_modules[position]
        shown_ops = [all_ops[i] for i in m["ops"] if shown(all_ops[i])]
        modules.append(
            _module_entry(
                m["name"],
                m["type"],
                parent,
                [op["name"] for op in shown_ops],
                {k: [tuple(e) for e in v] for k, v in m["inputs"]},
                {k: tuple(v) for k, v in m["outputs"]},
            )
        )
        for op in shown_ops:
            ops[op["name"]] = {
                "type": op_type(op),
                "stack": [tuple(c) for c in op["stack"]],
                "inputs": [(e["producer"], e.get("slot"), e.get("state", False)) for e in op["inputs"]],
                "outputs": {k: list(v) for k, v in sorted(op["outputs"])},
                "source": [tuple(f) for f in op["source"]],
            }
        for child in m["children"]:
            visit(child, m["name"])

    visit(0, None)
    return {"modules": modules, "ops": ops}


def load_index(path: str) -> dict:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def first_difference(expected: dict, actual: dict) -> str:
    """A short human-readable account of where two canonical forms differ."""
    exp_names = [m["name"] for m in expected["modules"]]
    act_names = [m["name"] for m in actual["modules"]]
    if exp_names != act_names:
        return f"module tree differs:\n  coreai-opt: {exp_names}\n  opscope:    {act_names}"
    for e, a in zip(expected["modules"], actual["modules"]):
        if e != a:
            return f"module {e['name']!r} differs:\n  coreai-opt: {e}\n  opscope:    {a}"
    for name in sorted(set(expected["ops"]) | set(actual["ops"])):
        e, a = expected["ops"].get(name), actual["ops"].get(name)
        if e != a:
            return f"op {name!r} differs:\n  coreai-opt: {e}\n  opscope:    {a}"
    return "no difference"
