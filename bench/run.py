"""opscope benchmarks side by side with the tools users would use instead (issue #6).

  python bench/run.py [--quick] [--build-dir build] [--out DIR] [--models A,B] [--metrics abcdef]

Exports every benchmark model (bench/models.py) at bench time, then measures, per model:
  (a) `opscope export` + `opscope index` vs coreai-opt ModelInspector on the nn.Module
  (b) `opscope index` / the worker on the .pt2 vs ModelInspector(ep.module()) and a
      torch.export.load walker
  (c) the language server's time to first completion, index cached, vs re-running the inspector
  (d) completion, hover, diagnostics round trips (100-pattern config), p50 and p99
  (e) the same against yaml-language-server with a JSON Schema of the same names
  (f) memory: the server with the index loaded, the workers' and the peers' peaks
Prints a table and the issue's targets (met / not met), and writes DIR/results.json.
A piece of opscope that is not built makes its figures "n/a (not built)".
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import editor  # noqa: E402
import inspection  # noqa: E402
import model_list  # noqa: E402
import targets  # noqa: E402
from measure import BenchError, run_measured  # noqa: E402
from results import Figure, Row, format_markdown, format_table, write_json  # noqa: E402
from tools import REPO, Tools  # noqa: E402

YAML_LS_VERSION = "1.25.0"  # the last release that runs on Node 20


def log(message: str) -> None:
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%H:%M:%S")
    print(f"[{stamp}] {message}", file=sys.stderr, flush=True)


def ensure_yaml_ls(tools: Tools) -> Tools:
    """Installs yaml-language-server into BUILD/bench/yls with npm, once."""
    if tools.yaml_ls or tools.node is None:
        return tools
    folder = tools.build_dir / "bench" / "yls"
    folder.mkdir(parents=True, exist_ok=True)
    package = folder / "package.json"
    if not package.exists():
        package.write_text('{"name": "opscope-bench-yls", "private": true}\n')
    log(f"installing yaml-language-server@{YAML_LS_VERSION} into {folder}")
    result = subprocess.run(["npm", "install", "--no-audit", "--no-fund",
                             f"yaml-language-server@{YAML_LS_VERSION}"], cwd=folder,
                            capture_output=True, text=True)
    if result.returncode != 0:
        log(f"npm install failed: {result.stderr.strip()[-300:]}")
    return Tools.locate(tools.build_dir, tools.python)


def machine() -> dict:
    cpu = "?"
    with open("/proc/cpuinfo") as info:
        for line in info:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as info:
        ram_kb = int(info.readline().split()[1])
    return {"nproc": os.cpu_count(), "cpu": cpu, "ram_gb": round(ram_kb / 1024 / 1024, 1),
            "kernel": platform.release(),
            "loadavg_start": os.getloadavg()}


def prepare_model(tools: Tools, spec, models_dir: Path, reuse: bool) -> inspection.BenchModelFiles:
    archive = models_dir / f"{spec.factory}.pt2"
    meta = models_dir / f"{spec.factory}.size.json"
    names = models_dir / f"{spec.factory}.names.json"
    peer = str(inspection.PEERS / "python_inspect.py")
    timing = {}
    if not (reuse and archive.exists() and meta.exists()):
        run = run_measured([str(tools.python), peer, "export", spec.factory, *spec.inputs,
                            "-o", str(archive), "--meta", str(meta)])
        timing = {k: v for k, v in run.json().items() if k in ("export_s", "save_s")}
    if not (reuse and names.exists()):
        run_measured([str(tools.python), peer, "names", str(archive), "-o", str(names)])
    return inspection.BenchModelFiles(spec.name, spec.factory, spec.inputs, archive,
                                      json.loads(meta.read_text()), names, timing)


def markdown_report(rows: list[Row], verdicts: list[dict], context: dict) -> str:
    m = context["machine"]
    lines = [
        f"Command: `{context['command']}` (git {context['git']}), {context['date_utc']}, "
        f"{context['duration_s']} s.",
        f"Machine: {m['nproc']} CPUs ({m['cpu']}), {m['ram_gb']} GB RAM, Linux {m['kernel']}; "
        f"load average {m['loadavg_start'][0]:.1f} at start, {m['loadavg_end'][0]:.1f} at end.",
        f"Runs per process figure: {context['runs']}; editor requests per kind: "
        f"{context['requests']}; diagnostics rounds: {context['diagnostic_runs']}.",
        "",
        format_markdown(rows),
        "",
        "| verdict | model | target | figure |",
        "|---|---|---|---|",
    ]
    lines += [f"| {v['verdict']} | {v['model']} | {v['target']} | {v['figure']} |"
              for v in verdicts]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="smoke test: small models, 2 runs, 30 requests")
    parser.add_argument("--build-dir", default=os.environ.get("OPSCOPE_BUILD_DIR", "build"),
                        help="build tree with opscope and opscope-inspect (default: build)")
    parser.add_argument("--out", help="results folder (default: BUILD/bench)")
    parser.add_argument("--python", default=str(REPO / ".venv/bin/python"),
                        help="Python with torch, coreai-opt, transformers")
    parser.add_argument("--models", help="comma-separated model names or factories")
    parser.add_argument("--metrics", default="abcdef", help="subset of abcdef (f rides along)")
    parser.add_argument("--runs", type=int, help="repeats per process metric (default 3; quick 2)")
    parser.add_argument("--requests", type=int,
                        help="editor requests per kind (default 300; quick 30)")
    parser.add_argument("--no-eager", action="store_true", help="skip eager mode in (a)")
    parser.add_argument("--reuse-models", action="store_true",
                        help="keep archives exported by an earlier run (development only)")
    args = parser.parse_args()

    build_dir = Path(args.build_dir).resolve()
    out = Path(args.out).resolve() if args.out else build_dir / "bench"
    out.mkdir(parents=True, exist_ok=True)
    models_dir = out / "models"
    models_dir.mkdir(exist_ok=True)
    logs = out / "logs"
    logs.mkdir(exist_ok=True)
    runs = args.runs or (2 if args.quick else 3)
    requests = args.requests or (30 if args.quick else 300)
    diag_runs = 5 if args.quick else 30

    tools = Tools.locate(build_dir, Path(args.python))
    if "e" in args.metrics:
        tools = ensure_yaml_ls(tools)
    selected = [m for m in model_list.MODELS if m.small or not args.quick]
    if args.models:
        wanted = {w.strip() for w in args.models.split(",")}
        selected = [m for m in model_list.MODELS if m.name in wanted or m.factory in wanted]
    context = {
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": machine(),
        "tools": tools.describe(),
        "runs": runs, "requests": requests, "diagnostic_runs": diag_runs,
        "git": subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip(),
    }
    log(f"tools: {json.dumps(context['tools'])}")

    rows: list[Row] = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="opscope-bench-") as tmp:
        for spec in selected:
            log(f"{spec.name}: exporting")
            try:
                model = prepare_model(tools, spec, models_dir, args.reuse_models)
            except BenchError as exc:
                log(f"{spec.name}: cannot export, skipped: {exc}")
                rows.append(Row(spec.name, {}, "export", "s", f"error: {exc}"))
                continue
            names = json.loads(model.names_file.read_text())
            if model.export_timing:  # where an export's time goes, for reading (a)
                rows.append(Row(spec.name, model.size,
                                "(a) breakdown: torch.export.export / torch.export.save", "s",
                                Figure({"export": model.export_timing["export_s"],
                                        "save": model.export_timing["save_s"]}, 1),
                                note="the bench's own in-process export of the archive"))
            if "a" in args.metrics:
                log(f"{spec.name}: (a) inspection from nn.Module")
                rows += inspection.inspect_from_module(tools, model, runs, tmp,
                                                       eager=not args.no_eager)
            if "b" in args.metrics:
                log(f"{spec.name}: (b) inspection from .pt2")
                rows += inspection.inspect_from_archive(tools, model, runs, tmp)
            if any(k in args.metrics for k in "cde"):
                log(f"{spec.name}: (c)(d)(e) editors")
                script = inspection.model_inspector_script_times(rows, spec.name)
                rows += editor.editor_rows(tools, model, names, tmp, runs, requests,
                                           diag_runs, script, logs)
            print(format_table([r for r in rows if r.model == spec.name]), flush=True)
            print(flush=True)
            save(out, rows, context, started)  # a run cut short keeps what it measured

    verdicts = save(out, rows, context, started)
    print(format_table(rows))
    print()
    print("Targets (issue #6):")
    print(targets.format_verdicts(verdicts))
    log(f"wrote {out / 'results.json'} and results.md in {context['duration_s']} s")
    return 0


def save(out: Path, rows: list[Row], context: dict, started: float) -> list[dict]:
    verdicts = targets.evaluate(rows)
    context["duration_s"] = round(time.perf_counter() - started, 1)
    context["machine"]["loadavg_end"] = os.getloadavg()
    write_json(str(out / "results.json"), rows, verdicts, context)
    (out / "results.md").write_text(markdown_report(rows, verdicts, context))
    return verdicts


if __name__ == "__main__":
    sys.exit(main())
