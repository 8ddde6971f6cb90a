"""Peer: what a user could script instead of opscope. Loads a `.pt2` with
`torch.export.load` and walks its graph once, collecting every node's name, op type,
module stack and producer/consumer edges (the facts an index holds), as cheaply as plain
torch allows: no unlifting, no ModelInspector. Prints one JSON line with its timings.

usage: walk_pt2.py ARCHIVE.pt2
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
import warnings


def memory_kb() -> dict:
    with open("/proc/self/status") as status:
        return {line.split(":")[0]: int(line.split()[1]) for line in status
                if line.startswith(("VmRSS", "VmHWM"))}


def walk(graph) -> dict:
    ops = []
    for node in graph.nodes:
        torch_fn = node.meta.get("torch_fn")
        stack = node.meta.get("nn_module_stack") or {}
        ops.append({
            "name": node.name,
            "kind": node.op,
            # coreai-opt's op type: "linear_1;builtin_function_or_method.linear" -> "linear"
            "type": torch_fn[1].split(".")[-1] if torch_fn else None,
            "module_stack": [(path, kind) for path, kind in stack.values()],
            "inputs": [producer.name for producer in node.all_input_nodes],
            "outputs": [consumer.name for consumer in node.users],
        })
    return {"ops": ops}


def main() -> None:
    archive = sys.argv[1]
    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    saved = os.dup(1)
    os.dup2(2, 1)  # torch's import-time chatter goes to stderr
    try:
        import torch
    finally:
        os.dup2(saved, 1)
        os.close(saved)

    start = time.perf_counter()
    program = torch.export.load(archive)
    loaded = time.perf_counter()
    facts = walk(program.graph)
    walked = time.perf_counter()
    print(json.dumps({
        "load_s": loaded - start,
        "walk_s": walked - loaded,
        "nodes": len(facts["ops"]),
        **memory_kb(),
    }), flush=True)


if __name__ == "__main__":
    main()
