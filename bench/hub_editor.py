"""What the editor benches of the dialects (bench/peft_editor.py, bench/llmcompressor_editor.py)
share: a Llama-3-70B-shaped model named by a Hugging Face id whose config.json sits in a private
hub cache (no weights, no opscope.yaml), a script over it opened in the real `opscope lsp`, and
the same figures timed the same way. Each bench writes its script and says where to complete.

  open cold   didOpen -> first diagnostics that know the model (export + index, nothing cached)
  open warm   the same in a new server with opscope's cache filled (the index is read)
  completion  completion inside an entry, after its first characters (p50 / p99)
  hover       hover on that entry (p50 / p99)
  check       didChange of the script -> publishDiagnostics, minus the debounce

With --callgrind the warm server runs under valgrind's callgrind, instrumented only around each
kind of request, and the bench prints instructions per request instead of times: on a shared
machine a p99 in milliseconds moves with the load, an instruction count does not.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lsp_client import LspClient  # noqa: E402
from measure import percentile  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from fixtures.hf_hub import write_hub_config  # noqa: E402

DEBOUNCE_S = 0.200
MODEL_ID = "opscope-bench/llama-3-70b-shaped"
LLAMA_70B = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 8192,
    "intermediate_size": 28672, "num_hidden_layers": 80, "num_attention_heads": 64,
    "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 8192,
    "rms_norm_eps": 1e-5, "rope_theta": 500000.0, "tie_word_embeddings": False,
}
# A Qwen3-30B-A3B-shaped MoE: 48 layers of 128 fused experts, which the llm-compressor dialect
# sees split into 18,432 Linear layers (oneshot's linearize_moe).
MOE_ID = "opscope-bench/qwen3-30b-a3b-shaped"
QWEN3_30B_A3B = {
    "architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "hidden_size": 2048,
    "intermediate_size": 6144, "num_hidden_layers": 48, "num_attention_heads": 32,
    "num_key_value_heads": 4, "head_dim": 128, "num_experts": 128, "num_experts_per_tok": 8,
    "moe_intermediate_size": 768, "vocab_size": 151936, "max_position_embeddings": 40960,
    "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "tie_word_embeddings": False,
}
LEAVES = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
CHECKS = 10  # whole-text edits timed


@dataclass
class EditorBench:
    title: str  # "LoraConfig with 100 target entries"
    filename: str  # the script's name in the workspace
    typed: int  # characters of an entry typed before the completion (its quote included)
    edit: Callable[[str, int], str]  # the script's text at `version`, from the previous one
    hover_required: bool = True  # every entry has a hover
    model_id: str = MODEL_ID  # the hub id the script names, and its config
    model_config: dict | None = None  # LLAMA_70B when None
    model_title: str = "Llama-3-70B-shaped model"


def is_diagnostics(uri: str, version: int | None = None, with_model: bool = False):
    def match(m: dict) -> bool:
        if m.get("method") != "textDocument/publishDiagnostics" or m["params"]["uri"] != uri:
            return False
        if version is not None and m["params"].get("version") != version:
            return False
        codes = {d.get("code") for d in m["params"]["diagnostics"]}
        return not with_model or "no-match" in codes
    return match


def arguments(doc: str, seed: int, moe: bool = False) -> argparse.Namespace:
    """The benches' options; `moe`: the bench offers --moe (the Qwen3-30B-A3B-shaped model)."""
    parser = argparse.ArgumentParser(description=doc,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default="build")
    parser.add_argument("--entries", type=int, default=100)
    parser.add_argument("--requests", type=int, default=200,
                        help="completions and hovers timed (20 under --callgrind)")
    parser.add_argument("--seed", type=int, default=seed)
    parser.add_argument("--callgrind", action="store_true",
                        help="print instructions per request, the warm server under callgrind")
    if moe:
        parser.add_argument("--moe", action="store_true",
                            help="the Qwen3-30B-A3B-shaped MoE instead of the 70B-shaped Llama")
    return parser.parse_args()


def open_once(command: list[str], root: Path, env: dict, bench: EditorBench,
              text: str) -> tuple[float, LspClient, str]:
    client = LspClient(command, cwd=str(root), env=env,
                       stderr_path=str(root / "server.log"))
    client.initialize(root)
    start = time.perf_counter()
    uri = client.did_open(root / bench.filename, text, language="python")
    arrived, _ = client.wait_notification(is_diagnostics(uri, with_model=True), timeout=1800)
    return arrived - start, client, uri


class Callgrind:
    """Instruction counts of one server under callgrind, between on() and off()."""

    def __init__(self, out: Path) -> None:
        self.out = out

    def command(self, opscope: Path) -> list[str]:
        return ["valgrind", "--tool=callgrind", "--instr-atstart=no",
                f"--callgrind-out-file={self.out}", str(opscope), "lsp"]

    def on(self, pid: int) -> None:
        subprocess.run(["callgrind_control", "--zero", str(pid)], check=True,
                       capture_output=True)
        subprocess.run(["callgrind_control", "--instr=on", str(pid)], check=True,
                       capture_output=True)

    def off(self, pid: int) -> int:
        """Instructions since on(), from the dump it writes."""
        subprocess.run(["callgrind_control", "--instr=off", str(pid)], check=True,
                       capture_output=True)
        before = set(self.out.parent.glob(self.out.name + ".*"))
        subprocess.run(["callgrind_control", "--dump", str(pid)], check=True,
                       capture_output=True)
        (dump,) = set(self.out.parent.glob(self.out.name + ".*")) - before
        found = re.search(r"^totals: (\d+)", dump.read_text(), re.M)
        if not found:
            raise RuntimeError(f"no instruction total in {dump}")
        return int(found.group(1))


def run(args: argparse.Namespace, bench: EditorBench, text: str, rng: random.Random) -> int:
    """Prints the bench's figures; `rng` (which wrote `text`) picks the entries asked about."""
    opscope = (Path(args.build_dir) / "opscope").resolve()
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.strip().startswith('"'))
    requests = min(args.requests, 20) if args.callgrind else args.requests
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        hub = write_hub_config(root / "hf", bench.model_id, bench.model_config or LLAMA_70B)
        env = dict(os.environ, HF_HOME=str(hub),
                   VIRTUAL_ENV=sys.prefix, XDG_CACHE_HOME=str(root / "cache"),
                   XDG_CONFIG_HOME=str(root / "config"))
        env.pop("HF_HUB_CACHE", None)
        cold, client, _ = open_once([str(opscope), "lsp"], root, env, bench, text)
        client.close()
        grind = Callgrind(root / "callgrind.out") if args.callgrind else None
        warm, client, uri = open_once(grind.command(opscope) if grind else [str(opscope), "lsp"],
                                      root, env, bench, text)
        times: dict[str, list[float]] = {"completion": [], "hover": [], "check": []}
        instructions: dict[str, int] = {}

        def timed(kind: str, requests_of_kind: Callable[[], None]) -> None:
            if grind:
                grind.on(client.pid)
            requests_of_kind()
            if grind:
                instructions[kind] = grind.off(client.pid)

        positions = []
        for _ in range(requests):
            line = first + rng.randrange(args.entries)
            col = lines[line].index('"') + bench.typed
            positions.append({"textDocument": {"uri": uri},
                              "position": {"line": line, "character": col}})

        methods = {"completion": "textDocument/completion", "hover": "textDocument/hover"}

        def ask(kind: str, position: dict) -> None:
            result, elapsed = client.request(methods[kind], position)
            if kind == "completion":
                assert result and result["items"], f"no completion at {position['position']}"
            else:
                assert result or not bench.hover_required, f"no hover at {position['position']}"
            times[kind].append(elapsed)

        def checks() -> None:
            nonlocal text
            for version in range(2, 2 + CHECKS):  # whole-text edits: the full check
                text = bench.edit(text, version)
                mark = len(client.notifications)
                sent = time.perf_counter()
                client.did_change(uri, version, text)
                arrived, _ = client.wait_notification(is_diagnostics(uri, version),
                                                      timeout=600, since=mark)
                times["check"].append(arrived - sent - DEBOUNCE_S)

        with client:
            client.drain(0.5)
            if grind:  # each kind apart, so each has its own count
                for kind in methods:
                    timed(kind, lambda kind=kind: [ask(kind, p) for p in positions])
            else:  # interleaved, as typing asks them
                for position in positions:
                    ask("completion", position)
                    ask("hover", position)
            timed("check", checks)
    print(f"{bench.model_title}, {bench.title}"
          f" (load {os.getloadavg()[0]:.1f})")
    print(f"  open cold   {cold:8.2f} s   (target <= 30 s)")
    if grind:
        print(f"  open warm   {warm:8.2f} s   (under callgrind)")
        for kind, total in instructions.items():
            n = CHECKS if kind == "check" else requests
            print(f"  {kind:<11} {total / n / 1e6:8.2f} M instructions per request"
                  f"  (n={n}, callgrind)")
        return 0
    print(f"  open warm   {warm * 1000:8.1f} ms  (target <= 100 ms)")
    for figure, values in times.items():
        ms = [v * 1000 for v in values]
        target = "<= 20 ms" if figure == "check" else "p99 <= 1 ms"
        print(f"  {figure:<11} p50 {percentile(ms, 50):7.2f} ms  p99 {percentile(ms, 99):7.2f} ms"
              f"  (n={len(ms)}; target {target})")
    return 0
