"""Builds an opscope index file straight from coreai-opt's own graph-mode inspection of an
archive, so the CLI can be tested against the oracle's names, edges and boundaries even
where the LibTorch worker is not built. Usage: oracle_index.py MODEL.pt2 -o INDEX.json"""

import argparse
import json
import sys

import torch
from coreai_opt.inspection._graph_mode import parse_ops_for_graph
from coreai_opt.quantization._graph.quantizer import GraphQuantizer

QUANTIZER_BIT = 1


def build_index(archive: str) -> dict:
    ep = torch.export.load(archive)
    gm = ep.module(check_guards=False) if "check_guards" in ep.module.__code__.co_varnames else ep.module()
    summary = parse_ops_for_graph(gm, None)
    quantizable = GraphQuantizer.get_compressible_op_names(gm)
    tree_ops = {op.op_name: op for op in summary.model.all_ops()}

    modules, module_position = [], {}

    def add_module(info, parent):
        position = len(modules)
        module_position[info.module_name] = position
        modules.append({
            "name": info.module_name, "type": info.module_type, "parent": parent,
            "children": [], "ops": [],
            "inputs": [[k, [[e.op.op_name, e.index] for e in edges]]
                       for k, edges in info.input_ops.items()],
            "outputs": [[k, [e.op.op_name, e.index]] for k, e in info.output_ops.items()],
        })
        for child in info.child_modules.values():
            modules[position]["children"].append(add_module(child, position))
        return position

    add_module(summary.model, -1)

    ops = []
    name_of = {}
    for node in gm.graph.nodes:
        name_of[node.name] = node.target if node.op == "get_attr" else node.name
    for node in gm.graph.nodes:
        name = name_of[node.name]
        kind = {"placeholder": "input", "output": "output", "get_attr": "state"}.get(node.op, "call")
        info = tree_ops.get(name)
        inputs = []
        for inp in node.all_input_nodes:
            if inp.op == "get_attr":
                inputs.append({"producer": name_of[inp.name], "state": True})
            else:
                inputs.append({"producer": name_of[inp.name], "slot": 0})
        outputs = [[0, [name_of[u.name] for u in node.users]]] if kind != "output" else [[0, []]]
        if info is not None:
            stack = [[c.module_name, c.module_type] for c in info.module_stack]
            source = [[f.filename, f.lineno, f.function_name, f.code_context] for f in info.source_frames]
            op_type = info.op_type or ""
            modules[module_position[info.module_stack[-1].module_name if info.module_stack else ""]]["ops"].append(len(ops))
        else:
            stack, source, op_type = [], [], ""
        ops.append({"name": name, "type": op_type, "kind": kind, "stack": stack, "source": source,
                    "inputs": inputs, "outputs": outputs,
                    "compressors": QUANTIZER_BIT if name in quantizable else 0})
    # coreai-opt attaches ops with only root entries to the root module.
    return {"format": "opscope-index", "version": 1, "mode": "graph",
            "provenance": {"archive": archive, "archive_hash": "", "torch_version": torch.__version__,
                           "source_files": []},
            "modules": modules, "ops": ops}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("archive")
    parser.add_argument("-o", required=True)
    args = parser.parse_args()
    with open(args.o, "w") as f:
        json.dump(build_index(args.archive), f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
