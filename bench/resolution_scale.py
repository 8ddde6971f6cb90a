"""coreai-opt's resolution on a big model (issue 10): `opscope explain --json` and
`opscope check` of a 100-entry Quantizer config against a GPT-shaped graph-mode index of
96 or 384 blocks, each run a fresh process (index load included). No torch needed: the
index is generated with the layout of bench/models.py's GPT (embeddings, per block ln_1,
attention q/k/v/out Linear, two matmuls, softmax, residual adds, MLP Linear -> gelu ->
Linear, then ln_f and the head), every op with its consumers so pattern groups form.

  .venv/bin/python bench/resolution_scale.py --build-dir build --blocks 384 --runs 20
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from configs import quantizer_config  # noqa: E402
from measure import percentile  # noqa: E402

LINEAR = "torch.nn.modules.linear.Linear"


def gpt_index(blocks: int) -> dict:
    modules = [{"name": "", "type": "models.gpt.GPT", "parent": -1, "children": [], "ops": [],
                "inputs": [], "outputs": []}]
    ops = [{"name": "idx", "type": "", "kind": "input", "stack": [["", "models.gpt.GPT"]],
            "source": [], "inputs": [], "outputs": [[0, []]], "compressors": 0}]

    def module(name: str, type_: str, parent: int) -> int:
        modules.append({"name": name, "type": type_, "parent": parent, "children": [], "ops": [],
                        "inputs": [], "outputs": []})
        modules[parent]["children"].append(len(modules) - 1)
        return len(modules) - 1

    def stack_of(m: int) -> list:
        chain = []
        while m >= 0:
            chain.append([modules[m]["name"], modules[m]["type"]])
            m = modules[m]["parent"]
        return chain[::-1]

    def op(name: str, type_: str, owner: int, *producers: str, registered: bool = False) -> str:
        modules[owner]["ops"].append(len(ops))
        ops.append({"name": name, "type": type_, "kind": "call", "stack": stack_of(owner),
                    "source": [["models/gpt.py", 10, "forward", "x = f(x)"]],
                    "inputs": [{"producer": p, "slot": 0} for p in producers],
                    "outputs": [[0, []]], "compressors": 1 if registered else 0})
        return name

    count: dict[str, int] = {}

    def fresh(base: str) -> str:
        n = count.get(base, 0)
        count[base] = n + 1
        return base if n == 0 else f"{base}_{n}"

    x = op("embedding", "embedding", module("wte", "torch.nn.modules.sparse.Embedding", 0), "idx",
           registered=True)
    blocks_list = module("blocks", "torch.nn.modules.container.ModuleList", 0)
    for b in range(blocks):
        blk = module(f"blocks.{b}", "models.gpt.Block", blocks_list)
        ln = op(fresh("layer_norm"), "layer_norm", module(f"blocks.{b}.ln_1",
                "torch.nn.modules.normalization.LayerNorm", blk), x)
        attn = module(f"blocks.{b}.attn", "models.gpt.Attention", blk)
        q, k, v = (op(fresh("linear"), "linear", module(f"blocks.{b}.attn.{n}", LINEAR, attn), ln,
                      registered=True) for n in ("q", "k", "v"))
        s = op(fresh("matmul"), "matmul", attn, q, k, registered=True)
        p = op(fresh("softmax"), "softmax", attn, s)
        a = op(fresh("matmul"), "matmul", attn, p, v, registered=True)
        o = op(fresh("linear"), "linear", module(f"blocks.{b}.attn.out", LINEAR, attn), a,
               registered=True)
        x = op(fresh("add"), "add", blk, x, o, registered=True)
        mlp = module(f"blocks.{b}.mlp", "torch.nn.modules.container.Sequential", blk)
        h = op(fresh("linear"), "linear", module(f"blocks.{b}.mlp.0", LINEAR, mlp), x,
               registered=True)
        g = op(fresh("gelu"), "gelu", module(f"blocks.{b}.mlp.1", "torch.nn.modules.activation.GELU",
                                            mlp), h)
        d = op(fresh("linear"), "linear", module(f"blocks.{b}.mlp.2", LINEAR, mlp), g,
               registered=True)
        x = op(fresh("add"), "add", blk, x, d, registered=True)
    op(fresh("linear"), "linear", module("head", LINEAR, 0), x, registered=True)
    by_name = {o["name"]: o for o in ops}
    for o in ops:
        for edge in o["inputs"]:
            by_name[edge["producer"]]["outputs"][0][1].append(o["name"])
    return {"format": "opscope-index", "version": 1, "mode": "graph",
            "provenance": {"archive": "gpt.pt2", "archive_hash": f"gpt{blocks}",
                           "torch_version": "2.13.0", "source_files": []},
            "modules": modules, "ops": ops}


def timed(cmd: list[str], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        started = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        out.append((time.perf_counter() - started) * 1000)
        assert proc.returncode in (0, 1), proc.stderr
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default="build")
    parser.add_argument("--blocks", type=int, nargs="+", default=[96, 384])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    opscope = str(Path(args.build_dir).resolve() / "opscope")
    with tempfile.TemporaryDirectory() as tmp:
        for blocks in args.blocks:
            index = gpt_index(blocks)
            index_path = Path(tmp) / f"gpt{blocks}.index.json"
            index_path.write_text(json.dumps(index))
            modules = [m["name"] for m in index["modules"] if m["name"]]
            calls = [o for o in index["ops"] if o["kind"] == "call"]
            names = {"module_names": modules,
                     "module_types": sorted({m["type"] for m in index["modules"]}),
                     "op_names": [o["name"] for o in calls],
                     "op_types": sorted({o["type"] for o in calls if o["compressors"]})}
            doc = quantizer_config(names, 100)
            config = Path(tmp) / f"gpt{blocks}.yaml"
            config.write_text(doc.text)
            explain = timed([opscope, "explain", str(config), "--model", str(index_path), "--json"],
                            args.runs)
            check = timed([opscope, "check", str(config), "--model", str(index_path)], args.runs)
            listed = json.loads(subprocess.run(
                [opscope, "explain", str(config), "--model", str(index_path), "--json"],
                capture_output=True, text=True).stdout)
            print(f"GPT-{blocks} ({len(calls)} ops, {len(modules)} modules), {doc.pattern_count} "
                  f"keys, {len(listed['ops'])} ops resolved, {len(listed['diagnostics'])} "
                  f"resolution diagnostics:")
            for label, values in (("explain --json", explain), ("check", check)):
                print(f"  {label:15s} p50 {percentile(values, 50):7.1f} ms  "
                      f"p99 {percentile(values, 99):7.1f} ms  (process, index load included)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
