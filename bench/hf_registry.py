"""Issue 25's figures (prints them; not a test): `opscope export hf:DIR/config.json --weightless`
on model types drawn at random from transformers' registry, each from its default config,
then `opscope index` reads each archive back; and Llama 4 Scout- and Maverick-shaped configs.

Each export runs through peak_rss.py (its wall time and peak RSS, the Python helper included);
an export past --kill-gb is killed here, before the machine runs out (a row `killed`), and one
past --timeout is a row `timeout`. Prints one row per model type, the fraction exported
weightless, the peak memory of every export and the largest, and the issue's targets.

Each failure is checked against transformers itself: the default config built on the meta
device by transformers' own auto classes (AutoModel, else each task's auto class that takes
the model type), in a process of its own, and a text model's forward run there on 8 tokens.
A failure transformers shares (a default config it cannot build, a package it needs that
this Python lacks, a forward that fails with the error opscope reported) is counted apart
from opscope's own, and both fractions are printed: exported X/N; of those transformers
can build, Y/M.

  .venv/bin/python bench/hf_registry.py --build-dir build [--sample 40] [--seed N]
      [--frame models|configs] [--types llama,bert,...] [--skip-llama4] [--llama4-only]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

from measure import TRAMPOLINE  # noqa: E402

TARGET_FRACTION = 0.90
TARGET_PEAK_MB = 2000  # 2 GB
LLAMA4_TARGET_S = 60

# Llama 4 Maverick's text and vision shapes (the hub's config.json: 48 layers of which every
# other is a mixture of 128 experts, a dense MLP of 16384 between them, no QK norm).
# transformers' default Llama4Config is the Scout shape (16 experts in every layer).
LLAMA4_MAVERICK = {
    "model_type": "llama4", "architectures": ["Llama4ForConditionalGeneration"],
    "boi_token_index": 200080, "eoi_token_index": 200081, "image_token_index": 200092,
    "tie_word_embeddings": False,
    "text_config": {
        "model_type": "llama4_text", "hidden_size": 5120, "intermediate_size": 8192,
        "intermediate_size_mlp": 16384, "num_hidden_layers": 48, "num_attention_heads": 40,
        "num_key_value_heads": 8, "head_dim": 128, "num_local_experts": 128,
        "num_experts_per_tok": 1, "interleave_moe_layer_step": 2, "vocab_size": 202048,
        "max_position_embeddings": 1048576, "attention_chunk_size": 8192,
        "use_qk_norm": False, "rope_theta": 500000.0, "rope_scaling": None,
        "bos_token_id": 200000, "eos_token_id": [200001, 200007, 200008],
        "pad_token_id": 200018, "torch_dtype": "bfloat16",
    },
    "vision_config": {
        "model_type": "llama4_vision_model", "hidden_size": 1408, "intermediate_size": 5632,
        "num_hidden_layers": 34, "num_attention_heads": 16, "image_size": 336,
        "patch_size": 14, "pixel_shuffle_ratio": 0.5, "projector_input_dim": 4096,
        "projector_output_dim": 4096, "vision_output_dim": 4096,
    },
}
LLAMA4_SCOUT = {"model_type": "llama4", "architectures": ["Llama4ForConditionalGeneration"]}


def _process_tree_rss_mb(root: int) -> float:
    """Resident memory of `root` and its descendants (the trampoline, opscope, the helper)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            parent, pages = int(fields[1]), int(fields[21])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(entry))
        rss[int(entry)] = pages
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo += children.get(pid, [])
    return total * os.sysconf("SC_PAGE_SIZE") / 2**20


def run_guarded(cmd: list[str], kill_mb: float, timeout: float) -> dict:
    """{status: ok | failed | killed | timeout, wall_s, peak_mb, returncode, stdout, stderr}."""
    with tempfile.TemporaryDirectory(prefix="hf-run-") as scratch:
        result_path = os.path.join(scratch, "result.json")
        out_path, err_path = os.path.join(scratch, "out"), os.path.join(scratch, "err")
        started = time.perf_counter()
        status, watched_mb = None, 0.0
        with open(out_path, "w") as out, open(err_path, "w") as err:
            proc = subprocess.Popen([sys.executable, "-S", "-E", TRAMPOLINE, result_path, *cmd],
                                    stdout=out, stderr=err, start_new_session=True)
            while proc.poll() is None:
                watched_mb = max(watched_mb, _process_tree_rss_mb(proc.pid))
                if watched_mb > kill_mb:
                    status = "killed"
                elif time.perf_counter() - started > timeout:
                    status = "timeout"
                if status:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                    break
                time.sleep(0.2)
        wall = time.perf_counter() - started
        with open(out_path) as out, open(err_path) as err:
            stdout, stderr = out.read(), err.read()
        try:
            with open(result_path) as result:
                measured = json.load(result)
        except (OSError, ValueError):
            measured = {"wall_s": wall, "peak_rss_kb": watched_mb * 1024,
                        "returncode": proc.returncode}
    if status is None:
        status = "ok" if measured["returncode"] == 0 else "failed"
    return {"status": status, "wall_s": measured["wall_s"],
            "peak_mb": max(measured["peak_rss_kb"] / 1024, watched_mb),
            "returncode": measured["returncode"], "stdout": stdout, "stderr": stderr}


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""


def export_row(opscope: Path, python: Path, folder: Path, config: dict, args, extra=()) -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    archive = folder / "model.pt2"
    cmd = [str(opscope), "export", f"hf:{folder / 'config.json'}", "--weightless", *extra,
           "-o", str(archive), "--json", "-q", "--python", str(python)]
    run = run_guarded(cmd, args.kill_gb * 1024, args.timeout)
    row = {"wall_s": round(run["wall_s"], 1), "peak_mb": round(run["peak_mb"])}
    if run["status"] != "ok":
        message = _last_line(run["stderr"]).replace(str(folder), "DIR")
        row.update(result=run["status"], message=message[:500])
        return row
    described = json.loads(_last_line(run["stdout"]))
    row["class"] = described["model_type"].rsplit(".", 1)[-1]
    row["weightless"] = described["weightless"]
    if described.get("built_instead"):  # the default class failed; another one exported
        row["built_instead"] = described["built_instead"][:200]
    index = folder / "model.index.json"
    indexed = subprocess.run([str(opscope), "index", str(archive), "-o", str(index), "-q"],
                             capture_output=True, text=True, timeout=args.timeout)
    if indexed.returncode != 0:
        row.update(result="index failed", message=_last_line(indexed.stderr)[:400])
        return row
    with open(index, encoding="utf-8") as handle:
        read = json.load(handle)
    row["ops"] = len(read.get("ops", []))
    row["result"] = "exported" if described["weightless"] else "exported with weights"
    if described.get("untraced"):  # torch.export cannot trace it: module names and state
        row.update(result="names only", modules=len(read.get("modules", [])),
                   message=described["untraced"][:400])
    archive.unlink()
    index.unlink()
    return row


# Builds a default config with transformers' own auto classes on the meta device (no weight
# data), in a process of its own, and runs a text model's forward there on 8 tokens: prints
# {"built": class, "forward_error": "Type: first line" | null, "where": "Class.method"} or
# {"error": "Type: ..."}. A forward error naming another of forward's arguments (it wants
# other inputs than tokens) is no fault of the config's: not reported.
_TRANSFORMERS_BUILDS = r"""
import inspect, json, sys, os, traceback
os.environ["HF_HUB_OFFLINE"] = "1"
import torch
from transformers import AutoConfig
from transformers.models.auto import modeling_auto
import transformers

name = sys.argv[1]
config = AutoConfig.for_model(name)
autos = ["AutoModel"] if name in modeling_auto.MODEL_MAPPING_NAMES else []
for mapping in sorted(dir(modeling_auto)):
    names = getattr(modeling_auto, mapping)
    if mapping.startswith("MODEL_FOR_") and mapping.endswith("_MAPPING_NAMES") and \
            isinstance(names, dict) and name in names:
        auto = "AutoModelFor" + mapping[len("MODEL_FOR_"):-len("_MAPPING_NAMES")].replace("_", "")
        autos += [a for a in dir(transformers) if a.lower() == auto.lower()]
first = None
for auto in autos or ["AutoModel"]:
    try:
        with torch.device("meta"):
            model = getattr(transformers, auto).from_config(config)
    except Exception as exc:
        first = first or f"{type(exc).__name__}: {(str(exc).strip().splitlines() or [''])[0]}"
        continue
    forward_error = where = None
    parameters = inspect.signature(model.forward).parameters
    if "input_ids" in parameters:
        try:
            with torch.no_grad():
                model.eval()(input_ids=torch.zeros(1, 8, dtype=torch.int64, device="meta"))
        except Exception as exc:
            forward_error = f"{type(exc).__name__}: {(str(exc).strip().splitlines() or [''])[0]}"
            if any(name != "input_ids" and name in forward_error for name in parameters):
                forward_error = None  # it wants other inputs: not its config's fault
            for frame, _ in traceback.walk_tb(exc.__traceback__):  # the innermost model code
                owner = frame.f_locals.get("self")
                if "transformers/models/" in frame.f_code.co_filename and owner is not None:
                    where = f"{type(owner).__name__}.{frame.f_code.co_name}"
    print(json.dumps({"built": type(model).__name__, "forward_error": forward_error,
                      "where": where}))
    sys.exit(0)
print(json.dumps({"error": first[:300]}))
"""


def transformers_builds(python: Path, model_type: str, timeout: float,
                        message: str = "") -> str | None:
    """None when transformers' own auto classes build the default config of `model_type`
    on the meta device; else their error's first line. Also its forward's error on 8 tokens
    when opscope's failure `message` says the same or names the same module's code (the
    default config's sizes do not fit together in transformers' own code)."""
    try:
        proc = subprocess.run([str(python), "-c", _TRANSFORMERS_BUILDS, model_type],
                              capture_output=True, text=True, timeout=timeout)
        answer = json.loads(_last_line(proc.stdout) or "{}")
    except subprocess.TimeoutExpired:
        return f"transformers took over {timeout:.0f} s to build it on meta"
    except ValueError:
        answer = {}
    if "built" in answer:
        failed, where = answer.get("forward_error"), answer.get("where")
        same = failed and (failed.split(": ", 1)[-1] in message or
                           (where and f"(in {where})" in message))
        return f"its forward on 8 tokens fails{f' in {where}' if where else ''}: " \
               f"{failed[:300]}" if same else None
    return answer.get("error") or f"the check failed: {_last_line(proc.stderr)[:300]}"


def _model_types(args) -> list[str]:
    """The draw: from the model types an auto class builds (--frame models: what
    from_pretrained can load) or from every registered config (--frame configs: also the
    configs of parts of other models, such as sam2_mask_decoder, that no class is built from
    alone)."""
    if args.types:
        return args.types.split(",")
    from transformers.models.auto import modeling_auto
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    names = sorted(CONFIG_MAPPING.keys())
    if args.frame == "models":
        built = {name for mapping in dir(modeling_auto)
                 if mapping.startswith("MODEL_") and mapping.endswith("_MAPPING_NAMES")
                 for name in getattr(modeling_auto, mapping)}
        names = [name for name in names if name in built]
    return random.Random(args.seed).sample(names, min(args.sample, len(names)))


def registry(opscope: Path, python: Path, args, tmp: Path) -> dict:
    names = _model_types(args)
    print(f"{len(names)} model types (--frame {args.frame}, --seed {args.seed}), default "
          "configs, `opscope export hf:DIR/config.json --weightless` then `opscope index`:",
          flush=True)
    rows = {}
    for number, name in enumerate(names, 1):
        row = export_row(opscope, python, tmp / "registry" / name, {"model_type": name}, args)
        if row["result"] not in ("exported", "names only"):
            row["transformers_fails"] = transformers_builds(python, name, args.timeout,
                                                            row.get("message", ""))
        rows[name] = row
        detail = (f"{row.get('class')}, {row.get('ops')} ops" if row["result"] == "exported"
                  else row.get("message") or row.get("class", ""))
        if row.get("transformers_fails"):
            detail = f"[transformers itself fails: {row['transformers_fails']}] " \
                     f"{detail}"
        print(f"  {number:3d} {name:34s} {row['result']:22s} {row['wall_s']:6.1f} s "
              f"{row['peak_mb']:6d} MB  {detail}", flush=True)
    exported = [n for n, r in rows.items() if r["result"] == "exported"]
    names_only = [n for n, r in rows.items() if r["result"] == "names only"]
    named = len(exported) + len(names_only)
    killed = [n for n, r in rows.items() if r["result"] in ("killed", "timeout")]
    over = [n for n, r in rows.items() if r["peak_mb"] > TARGET_PEAK_MB]
    buildable = [n for n, r in rows.items() if not r.get("transformers_fails")]
    fraction = len(exported) / len(rows) if rows else 0.0
    of_buildable = len(exported) / len(buildable) if buildable else 0.0
    largest = max(rows, key=lambda n: rows[n]["peak_mb"]) if rows else None
    print(f"exported {len(exported)}/{len(rows)} ({100 * fraction:.0f} %); of those "
          f"transformers can build, {len(exported)}/{len(buildable)} "
          f"({100 * of_buildable:.0f} %)", flush=True)
    print(f"with the module names only (torch.export cannot trace them): {len(names_only)}; "
          f"names available for {named}/{len(rows)} "
          f"({100 * named / max(len(rows), 1):.0f} %)", flush=True)
    summary = {
        "exported_weightless": f"{len(exported)}/{len(rows)} ({100 * fraction:.0f} %)",
        "names_only": names_only,
        "names_available": f"{named}/{len(rows)} ({100 * named / max(len(rows), 1):.0f} %)",
        "of_those_transformers_can_build": f"{len(exported)}/{len(buildable)} "
                                           f"({100 * of_buildable:.0f} %)",
        "transformers_itself_fails": {n: r["transformers_fails"] for n, r in rows.items()
                                      if r.get("transformers_fails")},
        "killed_or_timed_out": killed,
        "peak_mb_largest": f"{rows[largest]['peak_mb']} ({largest})" if largest else None,
        "over_2_gb": over,
        "opscope_failures": {n: r.get("message", r["result"]) for n, r in rows.items()
                             if r["result"] not in ("exported", "names only")
                             and not r.get("transformers_fails")},
        "targets": {
            ">= 90 % exported weightless": "met" if fraction >= TARGET_FRACTION else "NOT met",
            ">= 90 % with at least their module names":
                "met" if named >= TARGET_FRACTION * len(rows) else "NOT met",
            "none killed": "met" if not killed else "NOT met",
            "no export over 2 GB": "met" if not over else "NOT met",
        },
    }
    return summary


def llama4(opscope: Path, python: Path, args, tmp: Path) -> dict:
    rows = {}
    for shape, config in (("Scout (transformers' default Llama4Config)", LLAMA4_SCOUT),
                          ("Maverick-shaped", LLAMA4_MAVERICK)):
        for extra in ((), ("--hf-class", "Llama4ForCausalLM")):
            label = f"{shape}, {' '.join(extra) or 'the default class choice'}"
            folder = tmp / "llama4" / f"{len(rows)}"
            row = export_row(opscope, python, folder, config, args, extra)
            row["command"] = (f"opscope export hf:{shape.split()[0].lower()}/config.json "
                              f"--weightless {' '.join(extra)} -o model.pt2").replace("  ", " ")
            ok = row["result"] == "exported"
            row["target (<= 60 s, <= 2 GB)"] = (
                "met" if ok and row["wall_s"] <= LLAMA4_TARGET_S and
                row["peak_mb"] <= TARGET_PEAK_MB else "NOT met")
            rows[label] = row
            print(f"  {label}: {row['result']} in {row['wall_s']} s at {row['peak_mb']} MB"
                  + (f", {row.get('ops')} ops" if ok else f": {row.get('message', '')}"),
                  flush=True)
    return rows


def _load() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default="build", type=Path)
    parser.add_argument("--python", default=sys.executable, type=Path)
    parser.add_argument("--sample", type=int, default=40, help="model types drawn at random")
    parser.add_argument("--seed", type=int, default=None,
                        help="the draw (default: a new one each run, printed)")
    parser.add_argument("--frame", choices=("models", "configs"), default="models",
                        help="draw from the model types an auto class builds (default) or "
                             "from every registered config")
    parser.add_argument("--types", help="comma-separated model types instead of a draw")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per export")
    parser.add_argument("--kill-gb", type=float, default=8,
                        help="kill an export past this much memory (counted as killed)")
    parser.add_argument("--skip-llama4", action="store_true")
    parser.add_argument("--llama4-only", action="store_true")
    args = parser.parse_args()
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(10**6)
    opscope = (args.build_dir / "opscope").resolve()
    print(f"load average {_load()} on {os.cpu_count()} CPUs", flush=True)
    with tempfile.TemporaryDirectory(prefix="opscope-hf-registry-") as tmp:
        results = {}
        if not args.llama4_only:
            results["registry"] = registry(opscope, args.python, args, Path(tmp))
            print(json.dumps(results["registry"], indent=2), flush=True)
        if not args.skip_llama4:
            print("Llama 4, weightless (config.json only):", flush=True)
            results["llama4"] = llama4(opscope, args.python, args, Path(tmp))
            print(json.dumps(results["llama4"], indent=2), flush=True)
    print(f"load average after: {_load()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
