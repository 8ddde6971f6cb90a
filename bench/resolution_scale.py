"""coreai-opt's resolution on a big model (issue 10): `opscope explain --json` and
`opscope check` of a 100-entry Quantizer config against a GPT-shaped graph-mode index of
96 or 384 blocks, each run a fresh process (index load included). No torch needed: the
index is generated with the layout of bench/models.py's GPT (embeddings, per block ln_1,
attention q/k/v/out Linear, two matmuls, softmax, residual adds, MLP Linear -> gelu ->
Linear, then ln_f and the head), every op with its consumers so pattern groups form, and
every parameter with its shape (768 wide, GPT-2's vocabulary) read by its op.

The editor (`--editor`, through `opscope lsp` on the same index, the config open):
  - hover on a module key, its answer carrying the resolution (p50 / p99 of --requests);
  - re-checking the 100-entry config after an edit (textDocument/diagnostic, the
    resolution's overridden / partly-overridden / no-effect diagnostics included);
  - the projected size (eager index, the config with `execution_mode: eager`): the re-check
    that now also computes it, then the root key's hover and code lens that show it; in graph
    mode (issue 24) the re-check above computes it and the code lens shows it.

  .venv/bin/python bench/resolution_scale.py --build-dir build --blocks 384 --runs 20
  .venv/bin/python bench/resolution_scale.py --build-dir build --editor --runs 10
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from configs import quantizer_config  # noqa: E402
from lsp_client import LspClient  # noqa: E402
from measure import percentile  # noqa: E402

LINEAR = "torch.nn.modules.linear.Linear"


WIDTH = 768
VOCAB = 50257


def gpt_index(blocks: int, mode: str = "graph") -> dict:
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

    parameters: list[dict] = []

    def owned(m: int, *tensors: tuple[str, list[int]]) -> list[str]:
        """Registers module m's tensors ("weight", shape); returns their full names."""
        names = []
        for local, shape in tensors:
            names.append(f"{modules[m]['name']}.{local}" if modules[m]["name"] else local)
            parameters.append({"name": names[-1], "shape": shape, "dtype": "float32"})
        return names

    def op(name: str, type_: str, owner: int, *producers: str, registered: bool = False,
           states: tuple[str, ...] | list[str] = ()) -> str:
        modules[owner]["ops"].append(len(ops))
        ops.append({"name": name, "type": type_, "kind": "call", "stack": stack_of(owner),
                    "source": [["models/gpt.py", 10, "forward", "x = f(x)"]],
                    "inputs": [{"producer": p, "slot": 0} for p in producers]
                              + [{"producer": s, "state": True} for s in states],
                    "outputs": [[0, []]], "compressors": 3 if registered else 0})
        return name

    def linear(name: str, parent: int, *producers: str) -> str:
        m = module(name, LINEAR, parent)
        return op(fresh("linear"), "linear", m, *producers, registered=True,
                  states=owned(m, ("weight", [WIDTH, WIDTH]), ("bias", [WIDTH])))

    count: dict[str, int] = {}

    def fresh(base: str) -> str:
        n = count.get(base, 0)
        count[base] = n + 1
        return base if n == 0 else f"{base}_{n}"

    wte = module("wte", "torch.nn.modules.sparse.Embedding", 0)
    x = op("embedding", "embedding", wte, "idx", registered=True,
           states=owned(wte, ("weight", [VOCAB, WIDTH])))
    blocks_list = module("blocks", "torch.nn.modules.container.ModuleList", 0)
    for b in range(blocks):
        blk = module(f"blocks.{b}", "models.gpt.Block", blocks_list)
        ln_1 = module(f"blocks.{b}.ln_1", "torch.nn.modules.normalization.LayerNorm", blk)
        ln = op(fresh("layer_norm"), "layer_norm", ln_1, x,
                states=owned(ln_1, ("weight", [WIDTH]), ("bias", [WIDTH])))
        attn = module(f"blocks.{b}.attn", "models.gpt.Attention", blk)
        q, k, v = (linear(f"blocks.{b}.attn.{n}", attn, ln) for n in ("q", "k", "v"))
        s = op(fresh("matmul"), "matmul", attn, q, k, registered=True)
        p = op(fresh("softmax"), "softmax", attn, s)
        a = op(fresh("matmul"), "matmul", attn, p, v, registered=True)
        o = linear(f"blocks.{b}.attn.out", attn, a)
        x = op(fresh("add"), "add", blk, x, o, registered=True)
        mlp = module(f"blocks.{b}.mlp", "torch.nn.modules.container.Sequential", blk)
        h = linear(f"blocks.{b}.mlp.0", mlp, x)
        g = op(fresh("gelu"), "gelu", module(f"blocks.{b}.mlp.1", "torch.nn.modules.activation.GELU",
                                            mlp), h)
        d = linear(f"blocks.{b}.mlp.2", mlp, g)
        x = op(fresh("add"), "add", blk, x, d, registered=True)
    head = module("head", LINEAR, 0)
    op(fresh("linear"), "linear", head, x, registered=True,
       states=owned(head, ("weight", [VOCAB, WIDTH])))
    by_name = {o["name"]: o for o in ops}
    for o in ops:
        for edge in o["inputs"]:
            if edge.get("state"):
                continue
            by_name[edge["producer"]]["outputs"][0][1].append(o["name"])
    return {"format": "opscope-index", "version": 3, "mode": mode,
            "provenance": {"archive": "gpt.pt2", "archive_hash": f"gpt{blocks}",
                           "torch_version": "2.13.0", "source_files": []},
            "modules": modules, "ops": ops, "parameters": parameters}


def timed(cmd: list[str], runs: int) -> tuple[list[float], list[float]]:
    """Wall and CPU (user + system) milliseconds of each run: on a machine shared with other
    builds the CPU time is the figure that does not depend on the load."""
    wall, cpu = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        wall.append((time.perf_counter() - started) * 1000)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
        assert proc.returncode in (0, 1), proc.stderr
    return wall, cpu


def cpu_ms(pid: int) -> float:
    """CPU time (user + system) the process has used so far, in milliseconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def _is_diagnostics_for(uri: str):
    return lambda m: (m.get("method") == "textDocument/publishDiagnostics"
                      and m["params"]["uri"] == uri)


def _ms(values: list[float]) -> str:
    return f"p50 {percentile(values, 50):7.2f} ms  p99 {percentile(values, 99):7.2f} ms"


class EditorSession:
    """`opscope lsp` in a project whose opscope.yaml names the generated index."""

    def __init__(self, opscope: str, project: Path, index: dict, text: str) -> None:
        project.mkdir(parents=True, exist_ok=True)
        (project / "model.index.json").write_text(json.dumps(index))
        (project / "opscope.yaml").write_text("model: model.index.json\n")
        self.path = project / "quant.yaml"
        self.path.write_text(text)
        self.text = text
        self.client = LspClient([opscope, "lsp"], cwd=str(project),
                                stderr_path=str(project / "lsp.log"))
        self.capabilities = self.client.initialize(project).get("capabilities", {})
        since = len(self.client.notifications)
        self.uri = self.client.did_open(self.path, text)
        self.client.wait_notification(
            lambda m: m.get("method") == "opscope/status"
            and (m.get("params") or {}).get("state") in ("ready", "failed"), timeout=120,
            since=since)
        self.version = 1
        self.reopen(0)  # the first check against the loaded model

    def reopen(self, i: int) -> tuple[float, list]:
        """didClose + didOpen of an edited text -> its diagnostics: the server checks an
        opened document at once (an edit waits for a 200 ms debounce first)."""
        client = self.client
        since = len(client.notifications)
        client.notify("textDocument/didClose", {"textDocument": {"uri": self.uri}})
        client.wait_notification(_is_diagnostics_for(self.uri), timeout=60, since=since)
        since = len(client.notifications)
        started = time.perf_counter()
        client.did_open(self.path, self.text + f"# edit {i}\n")
        arrived, message = client.wait_notification(_is_diagnostics_for(self.uri), timeout=60,
                                                    since=since)
        self.version = 1
        return (arrived - started) * 1000, message["params"]["diagnostics"]

    def change(self, i: int) -> None:
        self.version += 1
        self.client.did_change(self.uri, self.version, self.text + f"# change {i}\n")

    def request(self, method: str, params: dict) -> tuple[object, float]:
        result, elapsed = self.client.request(method, {"textDocument": {"uri": self.uri}, **params})
        return result, elapsed * 1000

    def close(self) -> None:
        self.client.close()


def hover_markdown(result) -> str:
    return ((result or {}).get("contents") or {}).get("value", "")


def editor_figures(opscope: str, tmp: Path, blocks: int, index: dict, doc, runs: int,
                   requests: int) -> None:
    # (a) hover with the resolution, (b) the re-check, on the graph-mode index.
    session = EditorSession(opscope, tmp / f"lsp-graph-{blocks}", index, doc.text)
    try:
        checks, diagnostics = [], []
        pid = session.client.pid
        cpu_before = cpu_ms(pid)
        for i in range(runs):
            elapsed, diagnostics = session.reopen(i + 1)
            checks.append(elapsed)
        check_cpu = (cpu_ms(pid) - cpu_before) / runs
        codes = sorted({d.get("code") for d in diagnostics if d.get("code")})
        hovers = []
        cpu_before = cpu_ms(pid)
        for i in range(requests + 10):
            result, elapsed = session.request("textDocument/hover", {"position": doc.hover_position})
            if i >= 10:
                hovers.append(elapsed)
        hover_cpu = (cpu_ms(pid) - cpu_before) / (requests + 10)
        markdown = hover_markdown(result)
        assert "coreai-opt's resolution" in markdown, markdown[:500]
        print(f"  editor, graph index: re-check of the {doc.pattern_count}-entry config (open -> "
              f"publishDiagnostics, {len(diagnostics)} diagnostics: {', '.join(codes)}): "
              f"{_ms(checks)}; server CPU {check_cpu:.2f} ms per check (mean)")
        print(f"  editor: hover on `{doc.hover_key}` with the resolution: {_ms(hovers)}; server "
              f"CPU {hover_cpu:.3f} ms per hover (mean)")
        if "codeLensProvider" in session.capabilities:
            # Graph mode's projected size (issue 24): computed by the re-checks above.
            lenses = []
            for _ in range(requests):
                result, elapsed = session.request("textDocument/codeLens", {})
                lenses.append(elapsed)
            title = result[0]["command"]["title"] if result else "(no code lens)"
            assert "bits per weight" in title, title
            print(f"  editor, graph index: code lens once computed: {_ms(lenses)}; `{title}`")
    finally:
        session.close()

    # The projected size: the eager index, the same entries resolved for the eager Quantizer.
    if "codeLensProvider" not in session.capabilities:
        print("  editor: this opscope shows no projected size (no code lens)")
        return
    eager_text = doc.text.replace("quantization_config:\n",
                                  "quantization_config:\n  execution_mode: eager\n", 1)
    session = EditorSession(opscope, tmp / f"lsp-eager-{blocks}", gpt_index(blocks, "eager"),
                            eager_text)
    try:
        checks = []
        pid = session.client.pid
        cpu_before = cpu_ms(pid)
        for i in range(runs):
            elapsed, _ = session.reopen(i + 1)
            checks.append(elapsed)
        check_cpu = (cpu_ms(pid) - cpu_before) / runs
        root = {"position": {"line": 0, "character": 3}}
        lens_after_edit, lenses, root_hovers = [], [], []
        title = ""
        for i in range(runs):
            # Right after an edit the debounced check has not run: the lens computes the size
            # (the module resolution and every tensor's spec) for the new revision itself.
            session.change(i)
            result, elapsed = session.request("textDocument/codeLens", {})
            lens_after_edit.append(elapsed)
            title = result[0]["command"]["title"]
        assert "bits per weight" in title, title
        session.client.drain(0.6)  # the edits' checks
        for i in range(requests):
            result, elapsed = session.request("textDocument/codeLens", {})
            lenses.append(elapsed)
            result, elapsed = session.request("textDocument/hover", root)
            root_hovers.append(elapsed)
        assert "Projected size" in hover_markdown(result), hover_markdown(result)[:300]
        print(f"  editor, eager index (projected size): re-check, the size included: "
              f"{_ms(checks)}; server CPU {check_cpu:.2f} ms per check (mean)")
        print(f"  editor: code lens right after an edit (computes the size): "
              f"{_ms(lens_after_edit)}; `{title}`")
        print(f"  editor: code lens once computed: {_ms(lenses)}; hover on the root key: "
              f"{_ms(root_hovers)}")
    finally:
        session.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default="build")
    parser.add_argument("--blocks", type=int, nargs="+", default=[96, 384])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--editor", action="store_true",
                        help="also measure hover, re-check and the projected size in `opscope lsp`")
    parser.add_argument("--requests", type=int, default=300, help="hovers / code lenses timed")
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
            print(f"GPT-{blocks} ({len(calls)} ops, {len(modules)} modules, "
                  f"{len(index['parameters'])} tensors), {doc.pattern_count} "
                  f"keys, {len(listed['ops'])} ops resolved, {len(listed['diagnostics'])} "
                  f"resolution diagnostics:")
            for label, (wall, cpu) in (("explain --json", explain), ("check", check)):
                print(f"  {label:15s} p50 {percentile(wall, 50):7.1f} ms  "
                      f"p99 {percentile(wall, 99):7.1f} ms  (process, index load included); "
                      f"CPU p50 {percentile(cpu, 50):7.1f} ms")
            if args.editor:
                editor_figures(opscope, Path(tmp), blocks, index, doc, args.runs, args.requests)
    return 0


if __name__ == "__main__":
    sys.exit(main())
