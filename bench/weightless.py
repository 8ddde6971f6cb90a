"""Issue 13's figures, side by side in one run (prints them; not a test):

1. A Llama-3-70B-shaped config (80 layers, hidden 8192, GQA 64/8 heads, vocab 128256), from
   `config.json` to the first completion in an open config: a project whose opscope.yaml says
   `model: hf:./config.json` and `weightless: true`, opened in `opscope lsp` with a cold cache;
   wall time and the peak RSS of the largest process (the server, `opscope export` with its
   Python helper, `opscope index`). coreai-opt's ModelInspector needs the real model: the
   memory its float32 weights take is printed (it cannot be built here).
2. GPT-384 (bench/models.py), graph mode: `opscope export --weightless` + `opscope index` vs
   ModelInspector from the nn.Module (bench/peers/python_inspect.py), interleaved.

  .venv/bin/python bench/weightless.py --build-dir build [--runs 3] [--skip-70b] [--skip-gpt]
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


def llama_70b(opscope: Path, python: Path, tmp: str) -> dict:
    """Cold: opscope lsp, open a config, completion until the model's names are there."""
    project = Path(tmp) / "llama70b"
    project.mkdir()
    (project / "config.json").write_text(json.dumps(LLAMA_70B), encoding="utf-8")
    (project / "opscope.yaml").write_text(
        f"model: hf:./config.json\nweightless: true\npython: {python}\n", encoding="utf-8")
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


def gpt_384(opscope: Path, python: Path, runs: int, tmp: str) -> dict:
    target = f"{BENCH_DIR / 'models.py'}:gpt_384"
    ours, peer, ours_rss, peer_rss = Sample(), Sample(), Sample(), Sample()
    for run in range(runs):
        env = dict(os.environ, XDG_CACHE_HOME=tempfile.mkdtemp(dir=tmp))
        archive = os.path.join(env["XDG_CACHE_HOME"], "gpt.pt2")
        exported = run_measured([str(opscope), "export", target, "--weightless", "--input",
                                 "1x16:int64:0..63", "-o", archive, "--python", str(python)],
                                env=env)
        indexed = run_measured([str(opscope), "index", archive, "-o", archive + ".json"],
                               env=env)
        ours.add(exported.wall_s + indexed.wall_s)
        ours_rss.add(exported.peak_rss_kb / 1024)
        inspected = run_measured([str(python), str(BENCH_DIR / "peers" / "python_inspect.py"),
                                  "inspector-module", "gpt_384", "1x16:int64:0..63",
                                  "--mode", "graph"])
        peer.add(inspected.wall_s)
        peer_rss.add(inspected.peak_rss_kb / 1024)
        print(f"  GPT-384 run {run + 1}: opscope {ours.values[-1]:.1f} s, "
              f"ModelInspector {peer.values[-1]:.1f} s", flush=True)
    return {"opscope_export_weightless_plus_index_s": [round(ours.min, 1), round(ours.median, 1)],
            "model_inspector_from_module_s": [round(peer.min, 1), round(peer.median, 1)],
            "speedup_median": round(peer.median / ours.median, 2),
            "export_peak_rss_mb": round(max(ours_rss.values)),
            "model_inspector_peak_rss_mb": round(max(peer_rss.values))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default="build", type=Path)
    parser.add_argument("--python", default=sys.executable, type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--skip-70b", action="store_true")
    parser.add_argument("--skip-gpt", action="store_true")
    args = parser.parse_args()
    opscope = (args.build_dir / "opscope").resolve()
    with tempfile.TemporaryDirectory(prefix="opscope-weightless-") as tmp:
        if not args.skip_70b:
            print("Llama-3-70B-shaped config.json -> first completion (cold, weightless):",
                  flush=True)
            print(json.dumps(llama_70b(opscope, args.python, tmp), indent=2), flush=True)
        if not args.skip_gpt:
            print("GPT-384, graph mode, from the Python model:", flush=True)
            print(json.dumps(gpt_384(opscope, args.python, args.runs, tmp), indent=2),
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
