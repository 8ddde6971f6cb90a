"""Profiles one editor request kind of `opscope lsp` under callgrind (instruction counts are
repeatable on a noisy machine, unlike time):

  python bench/profile_lsp.py --build-dir build --model gpt_96 --kind completion -n 20

Uses the archive and names a bench run left in BUILD/bench/models. Loads the model first
(outside the profile: callgrind starts with instrumentation off and the client toggles it
on around the timed requests with callgrind_control), then prints callgrind_annotate's top
functions. Writes BUILD/bench/profile/<model>-<kind>.callgrind.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import editor  # noqa: E402
from configs import quantizer_config  # noqa: E402
from inspection import BenchModelFiles  # noqa: E402
from lsp_client import LspClient  # noqa: E402
from tools import REPO, Tools  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default="build")
    parser.add_argument("--model", default="gpt_96")
    parser.add_argument("--kind", choices=("completion", "hover", "diagnostics"),
                        default="completion")
    parser.add_argument("-n", type=int, default=20, help="requests inside the profile")
    args = parser.parse_args()

    build = Path(args.build_dir).resolve()
    tools = Tools.locate(build, REPO / ".venv/bin/python")
    models = build / "bench" / "models"
    archive = models / f"{args.model}.pt2"
    names = json.loads((models / f"{args.model}.names.json").read_text())
    doc = quantizer_config(names)
    out_dir = build / "bench" / "profile"
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / f"{args.model}-{args.kind}.callgrind"

    with tempfile.TemporaryDirectory() as tmp:
        model = BenchModelFiles(args.model, args.model, (), archive, {}, models)
        project = editor.prepare_project(Path(tmp), model, doc)
        env = dict(os.environ, XDG_CACHE_HOME=str(Path(tmp) / "cache"))
        cmd = ["valgrind", "--tool=callgrind", "--instr-atstart=no",
               f"--callgrind-out-file={out}", str(tools.opscope), "lsp"]
        client = LspClient(cmd, cwd=str(project), env=env,
                           stderr_path=str(out_dir / "valgrind.log"))
        server = editor.OpscopeServer.__new__(editor.OpscopeServer)
        server.client = client
        server.initialize(project)
        uri = client.did_open(project / "quant.yaml", doc.completion_text)
        server.wait_first_completion(uri, doc, timeout=1800)
        # Let the debounced full check of this edit pass outside the profile.
        client.did_change(uri, 2, doc.completion_text if args.kind == "completion" else doc.text)
        client.wait_notification(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                                 and m["params"].get("version") == 2, timeout=600)
        client.drain(1.0)
        subprocess.run(["callgrind_control", "--instr=on", str(client.pid)], check=True,
                       capture_output=True)
        for i in range(args.n):
            if args.kind == "completion":
                client.request("textDocument/completion", editor._completion_params(uri, doc))
            elif args.kind == "hover":
                client.request("textDocument/hover", editor._hover_params(uri, doc))
            else:
                editor._measure_open_diagnostics(client, project / "quant.yaml", doc, 1)
        subprocess.run(["callgrind_control", "--instr=off", str(client.pid)], check=True,
                       capture_output=True)
        client.close(timeout=120)
    report = subprocess.run(["callgrind_annotate", "--inclusive=yes", str(out)],
                            capture_output=True, text=True).stdout
    print("\n".join(report.splitlines()[:60]))
    print(f"\nprofile: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
