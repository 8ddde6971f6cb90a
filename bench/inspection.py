"""Metrics (a), (b) and the process side of (f): inspecting a model with opscope's
processes versus coreai-opt's ModelInspector and a hand-written torch.export walker.

Every run is a fresh process measured from outside (wall time, peak RSS via wait4); the
Python peers also report their in-process timings. opscope and its peers alternate inside
one loop so that load from other users of the machine hits both sides alike. opscope's
cache goes to a fresh folder for every run: these are cold inspections.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from measure import BenchError, Sample, run_measured
from results import Figure, Row
from tools import BENCH_DIR, NOT_BUILT, Tools

PEERS = BENCH_DIR / "peers"


@dataclass
class BenchModelFiles:
    """A benchmark model as exported by the bench itself, with its size and names."""

    name: str
    factory: str
    inputs: tuple
    archive: Path
    size: dict
    names_file: Path
    export_timing: dict = field(default_factory=dict)  # export_s / save_s when just exported


def _fresh_env(tmp: str) -> dict:
    env = dict(os.environ)
    cache = tempfile.mkdtemp(prefix="cache-", dir=tmp)
    env["XDG_CACHE_HOME"] = cache  # opscope index caches here: a new folder = cold
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _peer(tools: Tools, *args: str, env: dict | None = None):
    """Runs a Python peer; its JSON line is parsed here so a bad run fails inside the guard."""
    run = run_measured([str(tools.python), *args], env=env)
    run.data = run.json()
    return run


def _samples(*names: str) -> dict[str, Sample]:
    return {name: Sample() for name in names}


@dataclass
class Failures:
    """First error per measured quantity: reported in its row instead of a figure."""

    errors: dict = field(default_factory=dict)

    def guard(self, key: str, action):
        if key in self.errors:
            return None
        try:
            return action()
        except BenchError as exc:
            self.errors[key] = f"error: {str(exc)[:200]}"
            return None

    def side(self, key: str, make_figure, missing: bool = False):
        if missing:
            return NOT_BUILT
        if key in self.errors:
            return self.errors[key]
        return make_figure()


def inspect_from_module(tools: Tools, model: BenchModelFiles, runs: int, tmp: str,
                        eager: bool) -> list[Row]:
    """(a) `opscope export` + `opscope index` vs ModelInspector(nn.Module), graph and eager."""
    s = _samples("export", "export_eager", "index_graph", "index_eager", "e2e_graph", "e2e_eager",
                 "peer_graph", "peer_eager", "peer_graph_inproc", "peer_eager_inproc",
                 "export_rss", "peer_graph_rss", "peer_eager_rss", "e2e_graph_cpu",
                 "e2e_eager_cpu", "peer_graph_cpu", "peer_eager_cpu")
    fail = Failures()
    target = f"{BENCH_DIR / 'models.py'}:{model.factory}"
    have_opscope = tools.opscope is not None
    for _ in range(runs):
        if have_opscope:
            env = _fresh_env(tmp)
            archive = os.path.join(env["XDG_CACHE_HOME"], "model.pt2")
            cmd = [str(tools.opscope), "export", target, "-o", archive,
                   "--python", str(tools.python)]
            for spec in model.inputs:
                cmd += ["--input", spec]
            for mode in ("graph", "eager") if eager else ("graph",):
                # `opscope export` records eager mode only with --mode eager (it runs the
                # model once more), so each mode is its own export, as a user would run it.
                export_key = "export" if mode == "graph" else "export_eager"
                exported = fail.guard(export_key, lambda: run_measured(
                    [*cmd, "--mode", mode], env=env))
                if exported:
                    s[export_key].add(exported.wall_s)
                    if mode == "graph":
                        s["export_rss"].add(exported.peak_rss_kb / 1024)
                    index = os.path.join(env["XDG_CACHE_HOME"], f"{mode}.json")
                    run = fail.guard(f"index_{mode}", lambda: run_measured(
                        [str(tools.opscope), "index", archive, "--mode", mode, "-o", index],
                        env=env))
                    if run:
                        s[f"index_{mode}"].add(run.wall_s)
                        s[f"e2e_{mode}"].add(exported.wall_s + run.wall_s)
                        s[f"e2e_{mode}_cpu"].add(exported.cpu_s + run.cpu_s)
        for mode in ("graph", "eager") if eager else ("graph",):
            run = fail.guard(f"peer_{mode}", lambda: _peer(
                tools, str(PEERS / "python_inspect.py"), "inspector-module", model.factory,
                *model.inputs, "--mode", mode))
            if run:
                s[f"peer_{mode}"].add(run.wall_s)
                s[f"peer_{mode}_cpu"].add(run.cpu_s)
                s[f"peer_{mode}_inproc"].add(run.data["inspect_s"])
                s[f"peer_{mode}_rss"].add(run.peak_rss_kb / 1024)

    def fig(key, **detail):
        return Figure.timing(s[key], **detail)

    rows = []
    for mode in ("graph", "eager") if eager else ("graph",):
        if not have_opscope:
            ours = NOT_BUILT
        elif (export_key := "export" if mode == "graph" else "export_eager") in fail.errors \
                or f"index_{mode}" in fail.errors:
            ours = fail.errors.get(export_key) or fail.errors[f"index_{mode}"]
        else:
            ours = fig(f"e2e_{mode}", export_median_s=s[export_key].median,
                       index_median_s=s[f"index_{mode}"].median,
                       cpu_median_s=s[f"e2e_{mode}_cpu"].median)
        peer = fail.side(f"peer_{mode}", lambda: fig(
            f"peer_{mode}", in_process_inspect_median_s=s[f"peer_{mode}_inproc"].median,
            cpu_median_s=s[f"peer_{mode}_cpu"].median))
        rows.append(Row(model.name, model.size, f"(a) from nn.Module, {mode}: export+index",
                        "s", ours, f"ModelInspector({mode}) script", peer,
                        note="both sides are whole processes (Python start, imports, model "
                             "build included); peer detail has its in-process inspect time"))
    if not eager:
        rows.append(Row(model.name, model.size, "(a) from nn.Module, eager: export+index", "s",
                        "n/a (eager skipped)", "ModelInspector(eager) script", None))
    peer_rss = fail.side("peer_graph", lambda: Figure(
        {"peak": max(s["peer_graph_rss"].values), "median": s["peer_graph_rss"].median},
        len(s["peer_graph_rss"].values)))
    ours_rss = fail.side("export", lambda: Figure(
        {"peak": max(s["export_rss"].values), "median": s["export_rss"].median},
        len(s["export_rss"].values)), missing=not have_opscope)
    rows.append(Row(model.name, model.size, "(f) peak RSS: export helper", "MB", ours_rss,
                    "ModelInspector(graph) script", peer_rss,
                    note="ru_maxrss of the process tree (opscope export runs the Python helper)"))
    return rows


def inspect_from_archive(tools: Tools, model: BenchModelFiles, runs: int, tmp: str) -> list[Row]:
    """(b) `opscope index` / the worker on the .pt2 vs ModelInspector(ep.module()) and a
    torch.export.load walker; (f) the worker's and the peers' peak memory."""
    s = _samples("index", "worker", "worker_rss", "mi_inproc", "mi_parse", "mi_wall",
                 "mi_rss", "walk_inproc", "walk_wall", "walk_rss", "index_cpu", "worker_cpu",
                 "mi_cpu", "walk_cpu")
    fail = Failures()
    archive = str(model.archive)
    for _ in range(runs):
        env = _fresh_env(tmp)
        out = os.path.join(env["XDG_CACHE_HOME"], "index.json")
        if tools.opscope:
            run = fail.guard("index", lambda: run_measured(
                [str(tools.opscope), "index", archive, "--mode", "graph", "-o", out], env=env))
            if run:
                s["index"].add(run.wall_s)
                s["index_cpu"].add(run.cpu_s)
        if tools.inspect:
            run = fail.guard("worker", lambda: run_measured(
                [str(tools.inspect), archive, "--mode", "graph", "-o", out + ".worker"], env=env))
            if run:
                s["worker"].add(run.wall_s)
                s["worker_cpu"].add(run.cpu_s)
                s["worker_rss"].add(run.peak_rss_kb / 1024)
        run = fail.guard("mi", lambda: _peer(
            tools, str(PEERS / "python_inspect.py"), "inspector-archive", archive))
        if run:
            data = run.data
            s["mi_inproc"].add(data["unlift_s"] + data["inspect_s"])
            s["mi_parse"].add(data["inspect_s"])
            s["mi_wall"].add(run.wall_s)
            s["mi_cpu"].add(run.cpu_s)
            s["mi_rss"].add(run.peak_rss_kb / 1024)
        run = fail.guard("walk", lambda: _peer(tools, str(PEERS / "walk_pt2.py"), archive))
        if run:
            data = run.data
            s["walk_inproc"].add(data["load_s"] + data["walk_s"])
            s["walk_wall"].add(run.wall_s)
            s["walk_cpu"].add(run.cpu_s)
            s["walk_rss"].add(run.peak_rss_kb / 1024)

    ours = fail.side("index", lambda: Figure.timing(
        s["index"], cpu_median_s=s["index_cpu"].median), missing=not tools.opscope)
    worker = fail.side("worker", lambda: Figure.timing(
        s["worker"], cpu_median_s=s["worker_cpu"].median), missing=not tools.inspect)
    mi = fail.side("mi", lambda: Figure.timing(
        s["mi_inproc"], parse_only_median_s=s["mi_parse"].median,
        whole_script_median_s=s["mi_wall"].median))
    mi_script = fail.side("mi", lambda: Figure.timing(s["mi_wall"],
                                                      cpu_median_s=s["mi_cpu"].median))
    walk = fail.side("walk", lambda: Figure.timing(
        s["walk_inproc"], whole_script_median_s=s["walk_wall"].median))
    walk_script = fail.side("walk", lambda: Figure.timing(s["walk_wall"],
                                                          cpu_median_s=s["walk_cpu"].median))

    def peak(key):
        return Figure({"peak": max(s[key].values), "median": s[key].median}, len(s[key].values))

    m = (model.name, model.size)
    return [
        Row(*m, "(b) from .pt2: opscope index (process)", "s", ours,
            "ModelInspector(ep.module()) in-process", mi,
            note="peer: ep.module() + ModelInspector inside a warm Python, archive already "
                 "loaded (load and imports excluded); opscope: whole process, cold cache"),
        Row(*m, "(b) from .pt2: opscope-inspect worker", "s", worker,
            "ModelInspector(ep.module()) in-process", mi),
        Row(*m, "(b) from .pt2: opscope index vs script", "s", ours,
            "load + ModelInspector script", mi_script,
            note="peer: whole Python process: imports, torch.export.load, ep.module(), inspect"),
        Row(*m, "(b) from .pt2: opscope index vs walker", "s", ours,
            "torch.export.load + walk in-process", walk,
            note="peer: load + one pass collecting names, module stacks, edges; imports excluded"),
        Row(*m, "(b) from .pt2: opscope index vs walker script", "s", ours,
            "torch.export.load + walk script", walk_script),
        Row(*m, "(f) peak RSS: inspect worker", "MB",
            fail.side("worker", lambda: peak("worker_rss"), missing=not tools.inspect),
            "load + ModelInspector script", fail.side("mi", lambda: peak("mi_rss"))),
        Row(*m, "(f) peak RSS: inspect worker vs walker", "MB",
            fail.side("worker", lambda: peak("worker_rss"), missing=not tools.inspect),
            "torch.export.load + walk script", fail.side("walk", lambda: peak("walk_rss"))),
    ]


def model_inspector_script_times(rows: list[Row], model_name: str) -> Figure | None:
    """The (a) graph peer figure for a model: what re-running the inspector costs today."""
    for row in rows:
        if row.model == model_name and row.metric.startswith("(a) from nn.Module, graph"):
            return row.peer if isinstance(row.peer, Figure) else None
    return None
