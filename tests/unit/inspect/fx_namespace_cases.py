"""The names torch.fx gives, for fx_namespace_test.cpp: feeds candidate names through
torch.fx.graph._Namespace (and OpOverload targets through Graph._target_to_str) and writes
what torch answered to fx_namespace_cases.json.

  python fx_namespace_cases.py   # rewrite the JSON from the installed torch

tests/fidelity/test_fx_naming.py (ctest fidelity_graph) fails when the installed torch names
differently from the committed JSON.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch
import torch.fx.graph as fx_graph

CASES_FILE = Path(__file__).with_name("fx_namespace_cases.json")

# Each sequence goes through one fresh namespace, in order: later names depend on earlier ones.
SEQUENCES = {
    # torch.export's own names, as the deserializer re-creates them.
    "exported_names": ["x", "linear", "relu", "linear_1", "add", "add_1", "getitem",
                       "getitem_1", "getitem_2"],
    # A name used twice, then its numbered forms: the counter continues from the base's.
    "repeats": ["linear", "linear", "linear", "linear_1", "linear_5", "linear", "linear"],
    # ep.module()'s deep copy: a forward argument called like a builtin gets a number.
    "deepcopy_renames": ["input", "x", "input_1", "input", "list", "sum", "sum_1", "torch"],
    # Names FX generates for the nodes unlifting adds.
    "generated": ["copy_.default", "copy_.default", "as_none", "getitem", "getitem",
                  "linear_unused", "layers.0.weight", "layers.0.weight", "L['self'].x",
                  "_modules['a'].b"],
    # Characters a Python identifier cannot hold, and leading digits.
    "cleaning": ["", "", "1abc", "a.b.c", "a..b", "a-b c", "h\u00e9llo", "_", "__", "x_",
                 "_1", "_1", "9", "a_1b"],
    # Numeric suffixes (up to nine digits: the port keeps the counter in a long).
    "suffixes": ["x_0", "x_01", "x", "x", "y_123456789", "y", "y", "z_7", "z", "z_7"],
}

TARGETS = ["aten.linear.default", "aten.copy_.default", "aten.add.Tensor",
           "aten._native_batch_norm_legit_no_training.default", "aten.split_with_sizes.default",
           "aten.max_pool2d_with_indices.default", "aten.addmm.default", "aten.mul.Scalar"]


def overload(name: str):
    namespace, op, overload_name = name.split(".")
    return getattr(getattr(getattr(torch.ops, namespace), op), overload_name)


def cases() -> dict:
    sequences = {}
    for name, candidates in SEQUENCES.items():
        namespace = fx_graph._Namespace()
        sequences[name] = [[c, namespace.create_name(c, None)] for c in candidates]
    # Every name torch refuses, each in a fresh namespace: the port's list must hold them all.
    illegal = [[n, fx_graph._Namespace().create_name(n, None)] for n in sorted(fx_graph._illegal_names)]
    graph = fx_graph.Graph()
    targets = [["torch.ops." + t, graph._target_to_str(overload(t))] for t in TARGETS]
    return {"torch": torch.__version__.split("+")[0], "sequences": sequences,
            "illegal_names": illegal, "targets": targets}


def to_text(made: dict) -> str:
    """The JSON with one [candidate, name] pair a line, so a diff shows which name changed."""
    def pairs(rows):
        return "[\n" + ",\n".join("   " + json.dumps(r, ensure_ascii=False) for r in rows) + "\n  ]"
    sequences = ",\n".join(f"  {json.dumps(k)}: {pairs(v)}" for k, v in made["sequences"].items())
    return (f'{{"torch": {json.dumps(made["torch"])},\n "sequences": {{\n{sequences}\n }},\n'
            f' "illegal_names": {pairs(made["illegal_names"])},\n'
            f' "targets": {pairs(made["targets"])}\n}}\n')


def main() -> int:
    CASES_FILE.write_text(to_text(cases()))
    print(f"wrote {CASES_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
