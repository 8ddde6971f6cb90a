"""Issue 13's figures, side by side in one run (prints them; not a test):

1. A Llama-3-70B-shaped config (80 layers, hidden 8192, GQA 64/8 heads, vocab 128256):
   a. `opscope export hf:PATH/config.json -o m.pt2` with no flag (issue 22: an `hf:` target is
      always weightless; it used to build the random weights, 62 s at 23 GB): wall and CPU
      time, peak RSS of the largest process (`opscope` or its Python helper), archive size;
   b. from `config.json` to the first completion in an open config: a project whose
      opscope.yaml says only `model: hf:./config.json` (weightless is the default), opened in
      `opscope lsp` with a cold cache; wall time and the peak RSS of the largest process (the
      server, `opscope export` with its Python helper, `opscope index`). coreai-opt's
      ModelInspector needs the real model: the memory its float32 weights take is printed (it
      cannot be built here).
2. GPT-384 (bench/models.py), side by side with coreai-opt's ModelInspector from the nn.Module
   (bench/peers/python_inspect.py) in the same execution mode, interleaved: graph mode,
   `opscope export --weightless` + `opscope index`; eager mode, `opscope export --mode eager`
   + `opscope index --mode eager`. Wall and CPU time (a loaded machine inflates wall time).

  .venv/bin/python bench/weightless.py --build-dir build [--runs 3] [--skip-70b]
      [--skip-70b-lsp] [--skip-gpt] [--gpt-rows graph,eager]
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

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

from lsp_client import LspClient  # noqa: E402
from measure import Sample, run_measured  # noqa: E402

LLAMA_70B = {
    "model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 8192,
    "intermediate_size": 28672, "num_hidden_layers": 80, "num_attention_heads": 64,
    "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 8192,
    "rope_theta": 500000.0, "rms_norm_eps": 1e-5, "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}
# A quantization config with a module-name key being typed ("mo", for model.layers...).
CONFIG_TEXT = "quantization_config:\n  module_name_configs:\n    mo\n"
COMPLETION_POSITION = {"line": 2, "character": 6}


def _float32_gb(config: dict) -> float:
    """Bytes the real model's float32 weights take, from the parameter count on meta."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(AutoConfig.for_model(**config))
    return sum(p.numel() for p in model.parameters()) * 4 / 1e9


def _children_peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def llama_70b_export(opscope: Path, python: Path, tmp: str) -> dict:
    """`opscope export hf:config.json -o m.pt2`, no flag, cold cache."""
    folder = Path(tmp) / "llama70b-export"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(LLAMA_70B), encoding="utf-8")
    archive = folder / "m.pt2"
    env = dict(os.environ, XDG_CACHE_HOME=str(folder / "cache"))
    command = [str(opscope), "export", f"hf:{folder / 'config.json'}", "-o", str(archive),
               "--python", str(python), "--json", "--quiet"]
    run = run_measured(command, env=env, cwd=str(folder))
    described = json.loads(run.stdout.strip().splitlines()[-1])
    return {"command": "opscope export hf:PATH/config.json -o m.pt2 (no flag)",
            "wall_s": round(run.wall_s, 1), "cpu_s": round(run.cpu_s, 1),
            "peak_rss_mb_largest_process": round(run.peak_rss_kb / 1024),
            "weightless": described["weightless"],
            "archive_mb": round(archive.stat().st_size / 1e6, 1),
            "targets": "<= 60 s, <= 2 GB"}


def llama_70b(opscope: Path, python: Path, tmp: str) -> dict:
    """Cold: opscope lsp, open a config, completion until the model's names are there."""
    project = Path(tmp) / "llama70b"
    project.mkdir()
    (project / "config.json").write_text(json.dumps(LLAMA_70B), encoding="utf-8")
    (project / "opscope.yaml").write_text(
        f"model: hf:./config.json\npython: {python}\n", encoding="utf-8")
    config = project / "quant.yaml"
    config.write_text(CONFIG_TEXT, encoding="utf-8")
    env = dict(os.environ, XDG_CACHE_HOME=str(Path(tmp) / "cache"),
               XDG_CONFIG_HOME=str(Path(tmp) / "config"))
    subprocess.run([str(opscope), "trust", str(project / "opscope.yaml")], env=env, check=True,
                   capture_output=True)
    started = time.perf_counter()
    items = []
    with LspClient([str(opscope), "lsp"], cwd=str(project), env=env) as client:
        client.initialize(project)
        uri = client.did_open(config, CONFIG_TEXT)
        deadline = started + 600
        while time.perf_counter() < deadline:
            result, _ = client.request("textDocument/completion",
                                       {"textDocument": {"uri": uri}, "position": COMPLETION_POSITION})
            items = result.get("items", []) if isinstance(result, dict) else (result or [])
            if any(str(item.get("label", "")).startswith("model.")
                   for item in items):
                break
            time.sleep(0.25)
        first_completion_s = time.perf_counter() - started
    return {"first_completion_s": round(first_completion_s, 1),
            "completion_items": len(items),
            "peak_rss_mb_largest_process": round(_children_peak_mb()),
            "model_inspector_needs_gb_float32": round(_float32_gb(LLAMA_70B), 1)}


GPT_INPUT = "1x16:int64:0..63"


class _Side:
    """One side of a row: wall and CPU seconds (user + system, children included: a steadier
    figure on a loaded machine) and peak RSS per run."""

    def __init__(self) -> None:
        self.wall, self.cpu, self.rss = Sample(), Sample(), Sample()

    def add(self, *runs) -> None:
        self.wall.add(sum(run.wall_s for run in runs))
        self.cpu.add(sum(run.cpu_s for run in runs))
        self.rss.add(max(run.peak_rss_kb for run in runs) / 1024)

    def json(self) -> dict:
        return {"wall_s_min_median": [round(self.wall.min, 1), round(self.wall.median, 1)],
                "cpu_s_min_median": [round(self.cpu.min, 1), round(self.cpu.median, 1)],
                "peak_rss_mb": round(max(self.rss.values))}


# (row, opscope's export options, index mode, coreai-opt's execution mode)
GPT_ROWS = (
    ("graph, weightless", [], "graph", "graph"),  # weightless is the default
    ("eager", ["--mode", "eager"], "eager", "eager"),
)


def gpt_384(opscope: Path, python: Path, runs: int, tmp: str, rows=GPT_ROWS) -> dict:
    """Each row: `opscope export` + `opscope index` vs coreai-opt's ModelInspector from the
    nn.Module (bench/peers/python_inspect.py) in the same execution mode, interleaved."""
    target = f"{BENCH_DIR / 'models.py'}:gpt_384"
    sides = {row: (_Side(), _Side()) for row, *_ in rows}
    for run in range(runs):
        for row, options, mode, peer_mode in rows:
            ours, peer = sides[row]
            env = dict(os.environ, XDG_CACHE_HOME=tempfile.mkdtemp(dir=tmp))
            archive = os.path.join(env["XDG_CACHE_HOME"], "gpt.pt2")
            exported = run_measured([str(opscope), "export", target, *options, "--input",
                                     GPT_INPUT, "-o", archive, "--python", str(python)], env=env)
            indexed = run_measured([str(opscope), "index", archive, "--mode", mode, "-o",
                                    archive + ".json"], env=env)
            ours.add(exported, indexed)
            inspected = run_measured([str(python), str(BENCH_DIR / "peers" / "python_inspect.py"),
                                      "inspector-module", "gpt_384", GPT_INPUT, "--mode",
                                      peer_mode])
            peer.add(inspected)
            print(f"  GPT-384 {row}, run {run + 1}: opscope {ours.wall.values[-1]:.1f} s "
                  f"({ours.cpu.values[-1]:.1f} s CPU), ModelInspector "
                  f"{peer.wall.values[-1]:.1f} s ({peer.cpu.values[-1]:.1f} s CPU)", flush=True)
    result = {}
    for row, options, mode, peer_mode in rows:
        ours, peer = sides[row]
        result[row] = {
            "opscope": f"opscope export {' '.join(options)} + opscope index --mode {mode}",
            "peer": f"ModelInspector(model, inputs, {peer_mode!r}) from the nn.Module",
            "opscope_figures": ours.json(),
            "peer_figures": peer.json(),
            "speedup_median_wall": round(peer.wall.median / ours.wall.median, 2),
            "speedup_median_cpu": round(peer.cpu.median / ours.cpu.median, 2),
        }
    return result


def _load() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default="build", type=Path)
    parser.add_argument("--python", default=sys.executable, type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--skip-70b", action="store_true")
    parser.add_argument("--skip-70b-lsp", action="store_true",
                        help="of the Llama-3-70B rows, only the `opscope export` one")
    parser.add_argument("--skip-gpt", action="store_true")
    parser.add_argument("--gpt-rows", default="graph,eager",
                        help="which GPT-384 rows: graph (weightless), eager, or both")
    args = parser.parse_args()
    opscope = (args.build_dir / "opscope").resolve()
    with tempfile.TemporaryDirectory(prefix="opscope-weightless-") as tmp:
        # The editor row first: its peak RSS is read from this process's reaped children.
        if not args.skip_70b and not args.skip_70b_lsp:
            print("Llama-3-70B-shaped config.json -> first completion (cold, weightless):",
                  flush=True)
            print(json.dumps(llama_70b(opscope, args.python, tmp), indent=2), flush=True)
        if not args.skip_70b:
            print("Llama-3-70B-shaped config.json, `opscope export` without flags:", flush=True)
            print(json.dumps(llama_70b_export(opscope, args.python, tmp), indent=2), flush=True)
        if not args.skip_gpt:
            print(f"GPT-384 from the Python model, graph (weightless) and eager mode "
                  f"(load average {_load()} on {os.cpu_count()} CPUs):", flush=True)
            rows = [row for row in GPT_ROWS if row[3] in args.gpt_rows.split(",")]
            print(json.dumps(gpt_384(opscope, args.python, args.runs, tmp, rows), indent=2),
                  flush=True)
            print(f"load average after: {_load()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
