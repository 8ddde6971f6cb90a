"""Issue 28's `propose` in the editor (prints the figures; not a test): how long after a
Quantizer config opens the code actions "opscope: propose a config for B bits per weight"
are offered (the weight error measured first, then every weight under every choice, then the
allocations; the server starts proposing at the first codeAction request, sent here right
after didOpen), and after an edit that changes a spec (int8 -> int4: the candidates' measurements
are kept, so only the resolutions and allocations run again). Archives saved with their weights
as bench/weight_error.py builds them (ResNet-18- and GPT-2-124M-shaped, random weights), the
int8-per-channel graph config of bench/propose.py, the index cached first; each figure is from
the didOpen / didChange to the first codeAction reply on the root key's line that has the
actions for that version (asked every 50 ms; an edit's includes the server's 200 ms check
delay), median of --runs sessions. Also prints the longest codeAction reply seen meanwhile:
the main loop never waits for the measurement.

  .venv/bin/python bench/propose_editor.py --build-dir build [--runs 3] [--models resnet18,gpt2]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

from lsp_client import LspClient, file_uri  # noqa: E402
from weight_error import build  # noqa: E402

CONFIG = """quantization_config:
  global_config:
    op_state_spec:
      weight: {dtype: int8, granularity: {type: per_channel}}
"""
RESPEC = CONFIG.replace("int8", "int4")
CAPABILITIES = {"workspace": {"codeLens": {"refreshSupport": True},
                              "workspaceEdit": {"documentChanges": True,
                                                "changeAnnotationSupport": {}}}}


def actions_after(client: LspClient, uri: str, version: int, started: float,
                  slowest: list[float]) -> tuple[float, list[str]]:
    """Seconds from `started` until propose actions for `version` are offered."""
    while True:
        asked = time.perf_counter()
        actions, _ = client.request("textDocument/codeAction", {
            "textDocument": {"uri": uri},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
            "context": {"diagnostics": []}})
        slowest.append(time.perf_counter() - asked)
        offered = [a for a in actions or [] if a["title"].startswith("opscope: propose")
                   and "edit" in a
                   and a["edit"]["documentChanges"][0]["textDocument"]["version"] == version]
        if offered:
            return time.perf_counter() - started, [a["title"] for a in offered]
        if time.perf_counter() - started > 300:
            raise SystemExit(f"no propose action after 300 s: {actions}")
        time.sleep(0.05)


def session(opscope: str, folder: Path, cache: str) -> tuple[float, float, float, list[str]]:
    client = LspClient([opscope, "lsp"], cwd=str(folder),
                       env=dict(os.environ, XDG_CACHE_HOME=cache))
    client.initialize(folder, capabilities=CAPABILITIES)
    uri = file_uri(folder / "quant.yaml")
    slowest: list[float] = []
    started = time.perf_counter()
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "yaml", "version": 1, "text": CONFIG}})
    opened, titles = actions_after(client, uri, 1, started, slowest)
    started = time.perf_counter()
    client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                             "contentChanges": [{"text": RESPEC}]})
    respec, _ = actions_after(client, uri, 2, started, slowest)
    client.request("shutdown", None)
    client.notify("exit", None)
    return opened, respec, max(slowest), titles


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", default="build")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--models", default="resnet18,gpt2")
    args = parser.parse_args()
    opscope = str(Path(args.build_dir).resolve() / "opscope")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            folder = Path(tmp) / name
            folder.mkdir()
            model, inputs = build(name)
            parameters = sum(p.numel() for p in model.parameters())
            torch.export.save(torch.export.export(model, inputs), folder / "model.pt2")
            (folder / "opscope.yaml").write_text("model: model.pt2\nmode: graph\n"
                                                 "compressor: quantizer\n")
            (folder / "quant.yaml").write_text(CONFIG)
            cache = str(Path(tmp) / "cache")
            session(opscope, folder, cache)  # the index, cached
            runs = [session(opscope, folder, cache) for _ in range(args.runs)]
            opened, respec, slowest = (statistics.median(r[i] for r in runs) for i in range(3))
            print(f"{name} ({parameters / 1e6:.2f} M parameters): propose actions {opened:.2f} s "
                  f"after opening, {respec:.2f} s after an edit that changes a spec (int8 -> "
                  f"int4; measurements kept); slowest codeAction reply meanwhile "
                  f"{slowest * 1000:.0f} ms (median of {args.runs}, load "
                  f"{os.getloadavg()[0]:.1f})")
            for title in runs[-1][3]:
                print(f"  {title}")


if __name__ == "__main__":
    main()
