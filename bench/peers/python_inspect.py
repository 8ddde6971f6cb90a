"""The Python side of the benchmarks, one job per sub-command, each run in a fresh process
so its imports, time and memory are its own. The last stdout line is a JSON object with
in-process timings (seconds) and memory (kB from /proc/self/status).

  export     FACTORY SPEC... -o A.pt2 --meta M.json   the bench's own archive + model size
  names      A.pt2 -o N.json                           names a quantizer config can use
  inspector-module FACTORY SPEC... --mode graph|eager  coreai-opt ModelInspector on nn.Module
  inspector-archive A.pt2                              ModelInspector on the loaded program

What users do today is the `inspector-*` jobs: coreai-opt's own `ModelInspector`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

BENCH_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, BENCH_DIR)


def memory_kb() -> dict:
    fields = {}
    with open("/proc/self/status") as status:
        for line in status:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                fields[key] = int(rest.split()[0])
    return fields


def quiet_torch():
    """Imports torch and coreai-opt with their import-time chatter kept off our stdout."""
    import logging
    import warnings

    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        import torch  # noqa: F401
        from coreai_opt.inspection import ModelInspector  # noqa: F401
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def build(factory: str, specs: list[str]):
    import models

    model = getattr(models, factory)()
    return model, models.make_inputs(specs)


def cmd_export(args) -> dict:
    import torch

    model, inputs = build(args.factory, args.inputs)
    start = time.perf_counter()
    with torch.no_grad():  # as coreai-opt and `opscope export` do
        program = torch.export.export(model, inputs)
    exported = time.perf_counter()
    torch.export.save(program, args.output)
    saved = time.perf_counter()
    graph = program.module(check_guards=False).graph
    size = {
        "modules": sum(1 for _ in model.named_modules()),
        "ops": sum(1 for node in graph.nodes if node.op == "call_function"),
        "graph_nodes": len(graph.nodes),
    }
    with open(args.meta, "w") as meta:
        json.dump(size, meta)
    return {"export_s": exported - start, "save_s": saved - exported, **size}


def cmd_names(args) -> dict:
    """Module names/types and the quantizer's op names/types, by coreai-opt's own account."""
    import torch
    from coreai_opt.inspection import ModelInspector
    from coreai_opt.quantization import Quantizer

    program = torch.export.load(args.archive)
    inspector = ModelInspector(program.module(check_guards=False), None, "graph",
                               compressor=Quantizer)
    root = inspector.summary.model
    modules = [(name, info.module_type) for name, info in root.named_modules() if name]
    ops = [(op.op_name, op.op_type) for op in root.all_ops() if not op.is_state]
    names = {
        "module_names": [name for name, _ in modules],
        "module_types": sorted({kind for _, kind in modules}),
        "op_names": [name for name, _ in ops],
        "op_types": sorted({kind for _, kind in ops if kind}),
    }
    with open(args.output, "w") as out:
        json.dump(names, out)
    return {key: len(value) for key, value in names.items()}


def cmd_inspector_module(args) -> dict:
    from coreai_opt.inspection import ModelInspector

    model, inputs = build(args.factory, args.inputs)
    before = memory_kb()
    start = time.perf_counter()
    inspector = ModelInspector(model, inputs, args.mode)
    elapsed = time.perf_counter() - start
    ops = len(inspector.summary.model.all_ops())
    return {"inspect_s": elapsed, "ops": ops, "rss_before_kb": before["VmRSS"], **memory_kb()}


def cmd_inspector_archive(args) -> dict:
    import torch
    from coreai_opt.inspection import ModelInspector

    start = time.perf_counter()
    program = torch.export.load(args.archive)
    loaded = time.perf_counter()
    before = memory_kb()
    module = program.module(check_guards=False)
    unlifted = time.perf_counter()
    inspector = ModelInspector(module, None, "graph")
    inspected = time.perf_counter()
    return {
        "load_s": loaded - start,
        "unlift_s": unlifted - loaded,
        "inspect_s": inspected - unlifted,
        "ops": len(inspector.summary.model.all_ops()),
        "rss_before_kb": before["VmRSS"],
        **memory_kb(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    export = sub.add_parser("export")
    export.add_argument("factory")
    export.add_argument("inputs", nargs="+")
    export.add_argument("-o", "--output", required=True)
    export.add_argument("--meta", required=True)
    names = sub.add_parser("names")
    names.add_argument("archive")
    names.add_argument("-o", "--output", required=True)
    module = sub.add_parser("inspector-module")
    module.add_argument("factory")
    module.add_argument("inputs", nargs="+")
    module.add_argument("--mode", choices=("graph", "eager"), default="graph")
    archive = sub.add_parser("inspector-archive")
    archive.add_argument("archive")
    args = parser.parse_args()

    quiet_torch()
    started = memory_kb()
    handler = {
        "export": cmd_export,
        "names": cmd_names,
        "inspector-module": cmd_inspector_module,
        "inspector-archive": cmd_inspector_archive,
    }[args.command]
    result = handler(args)
    result["rss_after_imports_kb"] = started["VmRSS"]
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
