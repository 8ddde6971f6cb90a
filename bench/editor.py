"""Metrics (c), (d), (e) and the server side of (f): the language servers driven over real
JSON-RPC round trips on stdio by this (separate) client process.

opscope: a project folder with `opscope.yaml` (model.pt2, graph, quantizer) and a
`quant.yaml` with 100 patterns. The server reports `opscope/status {state: ready}` when the
model's index is loaded; "first completion" is the first completion response that lists
real module names. yaml-language-server: the same document, with a JSON Schema that
enumerates the same names as allowed keys (configs.json_schema).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from configs import (EditorDocument, SchemaDocument, quantizer_config, schema_document,
                     write_json_schema)
from inspection import BenchModelFiles
from lsp_client import LspClient, LspError, file_uri
from measure import BenchError, Sample, proc_status_kb
from results import Figure, Row
from tools import NOT_BUILT, Tools

# yaml-language-server validates a changed document after a fixed 200 ms timer
# (yamlSettings.validationDelayMs, not a setting); we subtract it to get its work time.
YAML_LS_VALIDATION_DELAY_S = 0.200


@dataclass
class EditorSamples:
    completion: Sample = field(default_factory=Sample)
    hover: Sample = field(default_factory=Sample)
    diagnostics: Sample = field(default_factory=Sample)
    diagnostics_kind: str = ""  # "pull" or "push"
    diagnostics_count: int = 0
    completion_items: int = 0
    hover_found: bool = False
    memory_kb: dict = field(default_factory=dict)
    # coreai-opt's models (issue 11): a spec typed under `op_state_spec: weight:`
    schema_key: Sample = field(default_factory=Sample)
    schema_value: Sample = field(default_factory=Sample)
    schema_hover: Sample = field(default_factory=Sample)
    schema_diagnostics: Sample = field(default_factory=Sample)
    schema_key_items: int = 0
    schema_value_items: int = 0
    schema_hover_found: bool = False
    schema_errors: int = 0


def _items(result) -> list:
    if result is None:
        return []
    return result.get("items", []) if isinstance(result, dict) else result


def _lists_real_names(result, doc: EditorDocument) -> bool:
    return any(item.get("label", "").startswith(doc.completion_prefix) for item in _items(result))


def _completion_params(uri: str, doc: EditorDocument) -> dict:
    return {"textDocument": {"uri": uri}, "position": doc.completion_position,
            "context": {"triggerKind": 1}}


def _hover_params(uri: str, doc: EditorDocument) -> dict:
    return {"textDocument": {"uri": uri}, "position": doc.hover_position}


def _variant(doc: EditorDocument, i: int) -> str:
    """The full config with a trailing comment that changes every time (forces a re-check)."""
    return doc.text + f"# edit {i}\n"


def _is_diagnostics_for(uri: str):
    return lambda m: (m.get("method") == "textDocument/publishDiagnostics"
                      and m["params"]["uri"] == uri)


def prepare_project(root: Path, model: BenchModelFiles, doc: EditorDocument) -> Path:
    project = root / f"project-{model.factory}"
    if project.exists():
        shutil.rmtree(project)
    project.mkdir(parents=True)
    os.symlink(model.archive, project / "model.pt2")
    (project / "opscope.yaml").write_text("model: model.pt2\nmode: graph\ncompressor: quantizer\n")
    (project / "quant.yaml").write_text(doc.text)
    return project


class OpscopeServer:
    def __init__(self, tools: Tools, cwd: Path, env: dict, log: Path) -> None:
        self.client = LspClient([str(tools.opscope), "lsp"], cwd=str(cwd), env=env,
                                stderr_path=str(log))
        self.capabilities: dict = {}

    def initialize(self, root: Path) -> None:
        self.capabilities = self.client.initialize(root).get("capabilities", {})

    def wait_first_completion(self, uri: str, doc: EditorDocument, timeout: float) -> float:
        """Polls completion until it lists real names; returns when that answer arrived.
        Between polls it sleeps on the server's opscope/status notifications."""
        client = self.client
        deadline = time.perf_counter() + timeout
        seen = 0
        while True:
            result, _ = client.request("textDocument/completion", _completion_params(uri, doc))
            if _lists_real_names(result, doc):
                return time.perf_counter()
            for _, message in client.notifications[seen:]:
                params = message.get("params") or {}
                if message.get("method") == "opscope/status" and params.get("state") == "failed":
                    raise BenchError(f"model failed to load: {params.get('message', '')[:200]}")
            seen = len(client.notifications)
            if time.perf_counter() > deadline:
                raise BenchError(f"no completion with model names within {timeout:.0f} s")
            try:
                client.wait_notification(
                    lambda m: m.get("method") == "opscope/status", timeout=0.05, since=seen)
            except LspError:
                pass


def _measure_requests(client: LspClient, method: str, params: dict, count: int,
                      warmup: int) -> tuple[Sample, object]:
    sample = Sample()
    result = None
    for i in range(warmup + count):
        result, elapsed = client.request(method, params)
        if i >= warmup:
            sample.add(elapsed)
    return sample, result


def _measure_push_diagnostics(client: LspClient, uri: str, doc: EditorDocument, count: int,
                              first_version: int) -> tuple[Sample, int]:
    """didChange -> the next publishDiagnostics for the document (includes any debounce)."""
    sample = Sample()
    found = 0
    for i in range(count):
        since = len(client.notifications)
        start = time.perf_counter()
        client.did_change(uri, first_version + i, _variant(doc, i))
        arrived, message = client.wait_notification(_is_diagnostics_for(uri), timeout=30,
                                                    since=since)
        sample.add(arrived - start)
        found = len(message["params"]["diagnostics"])
    return sample, found


def _measure_open_diagnostics(client: LspClient, path: Path, doc: EditorDocument,
                              count: int) -> tuple[Sample, int]:
    """didClose + didOpen -> publishDiagnostics: a server that checks opened documents at
    once (and debounces only edits) answers this with its full-document check alone."""
    sample = Sample()
    found = 0
    uri = file_uri(path)
    for i in range(count):
        since = len(client.notifications)
        client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        # The close clears the document's diagnostics: that publish is not a sample.
        client.wait_notification(_is_diagnostics_for(uri), timeout=30, since=since)
        since = len(client.notifications)
        start = time.perf_counter()
        client.did_open(path, _variant(doc, i))
        arrived, message = client.wait_notification(_is_diagnostics_for(uri), timeout=30,
                                                    since=since)
        sample.add(arrived - start)
        found = len(message["params"]["diagnostics"])
    return sample, found


def opscope_editor_session(tools: Tools, project: Path, doc: EditorDocument, env: dict,
                           requests: int, diag_runs: int, log: Path,
                           load_timeout: float) -> tuple[float, EditorSamples]:
    """One server from spawn: (seconds to first completion, latencies, memory)."""
    start = time.perf_counter()
    server = OpscopeServer(tools, project, env, log)
    samples = EditorSamples()
    try:
        server.initialize(project)
        uri = server.client.did_open(project / "quant.yaml", doc.completion_text)
        first = server.wait_first_completion(uri, doc, load_timeout) - start
        if requests:
            via = "pull" if "diagnosticProvider" in server.capabilities else "open"
            _editor_phases(server.client, uri, doc, samples, requests, diag_runs, via,
                           project / "quant.yaml")
            _schema_phases(server.client, uri, schema_document(doc), samples, requests,
                           diag_runs, project / "quant.yaml", version=100 + diag_runs)
            samples.memory_kb = proc_status_kb(server.client.pid)
        return first, samples
    except LspError as exc:
        raise BenchError(f"opscope lsp: {exc}") from exc
    finally:
        server.client.close()


def _editor_phases(client: LspClient, uri: str, doc: EditorDocument, samples: EditorSamples,
                   requests: int, diag_runs: int, diagnostics_via: str, path: Path,
                   version: int = 2) -> None:
    # Each edit triggers a debounced full check; let it pass so it does not land inside
    # the timed requests (both servers run it on the thread that answers them).
    settle = 0.4
    client.did_change(uri, version, doc.completion_text)
    client.drain(settle)
    samples.completion, result = _measure_requests(
        client, "textDocument/completion", _completion_params(uri, doc), requests, 10)
    samples.completion_items = len(_items(result))
    client.did_change(uri, version + 1, doc.text)
    client.drain(settle)
    samples.hover, result = _measure_requests(
        client, "textDocument/hover", _hover_params(uri, doc), requests, 10)
    samples.hover_found = bool(result)
    samples.diagnostics_kind = diagnostics_via
    if diagnostics_via == "pull":
        sample = Sample()
        for i in range(diag_runs):
            client.did_change(uri, version + 2 + i, _variant(doc, i))
            result, elapsed = client.request("textDocument/diagnostic",
                                             {"textDocument": {"uri": uri}})
            sample.add(elapsed)
            samples.diagnostics_count = len((result or {}).get("items", []))
        samples.diagnostics = sample
    elif diagnostics_via == "open":
        samples.diagnostics, samples.diagnostics_count = _measure_open_diagnostics(
            client, path, doc, diag_runs)
    else:
        samples.diagnostics, samples.diagnostics_count = _measure_push_diagnostics(
            client, uri, doc, diag_runs, version + 2)


def _schema_phases(client: LspClient, uri: str, doc: SchemaDocument, samples: EditorSamples,
                   requests: int, diag_runs: int, path: Path, version: int) -> None:
    """Completion, hover and diagnostics answered from coreai-opt's models (the schema), in the
    same 100-pattern document, with the model loaded."""
    settle = 0.4
    position = {"textDocument": {"uri": uri}, "context": {"triggerKind": 1}}
    for text, where, kind in ((doc.key_text, doc.key_position, "key"),
                              (doc.value_text, doc.value_position, "value")):
        client.did_change(uri, version, text)
        version += 1
        client.drain(settle)
        sample, result = _measure_requests(client, "textDocument/completion",
                                           dict(position, position=where), requests, 10)
        labels = {item.get("label") for item in _items(result)}
        wanted = "dtype" if kind == "key" else "int4"
        if wanted not in labels:
            raise BenchError(f"schema {kind} completion did not offer `{wanted}`")
        setattr(samples, f"schema_{kind}", sample)
        setattr(samples, f"schema_{kind}_items", len(labels))
    client.did_change(uri, version, doc.hover_text)
    client.drain(settle)
    samples.schema_hover, result = _measure_requests(
        client, "textDocument/hover",
        {"textDocument": {"uri": uri}, "position": doc.hover_position}, requests, 10)
    samples.schema_hover_found = "qscheme" in str(result)
    errors = EditorDocument(text=doc.errors_text, pattern_count=0, completion_text="",
                            completion_position={}, completion_prefix="", hover_position={},
                            hover_key="")
    samples.schema_diagnostics, samples.schema_errors = _measure_open_diagnostics(
        client, path, errors, diag_runs)


def opscope_empty_footprint(tools: Tools, root: Path, env: dict, log: Path) -> dict:
    """The server's memory with no model: initialized in a folder without a project."""
    empty = root / "empty-project"
    empty.mkdir(exist_ok=True)
    server = OpscopeServer(tools, empty, env, log)
    try:
        server.initialize(empty)
        server.client.drain(0.2)
        return proc_status_kb(server.client.pid)
    finally:
        server.client.close()


def yaml_ls_session(tools: Tools, folder: Path, names: dict, doc: EditorDocument,
                    requests: int, diag_runs: int, log: Path) -> tuple[EditorSamples, dict]:
    """yaml-language-server with the generated schema: latencies, memory, empty memory."""
    schema = folder / "quant.schema.json"
    write_json_schema(names, str(schema))
    settings = {"yaml": {"schemas": {file_uri(schema): ["quant.yaml"]}, "validate": True,
                         "completion": True, "hover": True, "format": {"enable": False},
                         "schemaStore": {"enable": False}}}
    cmd = [str(tools.node), str(tools.yaml_ls), "--stdio"]
    samples = EditorSamples()
    client = LspClient(cmd, cwd=str(folder), settings=settings, stderr_path=str(log))
    try:
        client.initialize(folder)
        client.drain(0.3)
        empty = proc_status_kb(client.pid)
        client.notify("workspace/didChangeConfiguration", {"settings": settings})
        since = len(client.notifications)
        uri = client.did_open(folder / "quant.yaml", doc.text)
        client.wait_notification(_is_diagnostics_for(uri), timeout=120, since=since)
        _editor_phases(client, uri, doc, samples, requests, diag_runs, "change",
                       folder / "quant.yaml")
        samples.diagnostics = Sample([max(0.0, v - YAML_LS_VALIDATION_DELAY_S)
                                      for v in samples.diagnostics.values])
        samples.memory_kb = proc_status_kb(client.pid)
        return samples, empty
    except LspError as exc:
        raise BenchError(f"yaml-language-server: {exc}") from exc
    finally:
        client.close()


def editor_rows(tools: Tools, model: BenchModelFiles, names: dict, tmp: str, runs: int,
                requests: int, diag_runs: int, inspector_script: Figure | None,
                log_dir: Path) -> list[Row]:
    doc = quantizer_config(names)
    root = Path(tempfile.mkdtemp(prefix="editor-", dir=tmp))
    m = (model.name, model.size)
    rows: list[Row] = []

    ours: dict[str, object] = {}
    if tools.opscope is None:
        for key in ("cold", "warm", "completion", "hover", "diagnostics", "rss", "rss_delta",
                    *SCHEMA_KEYS):
            ours[key] = NOT_BUILT
    else:
        env = dict(os.environ)
        env["XDG_CACHE_HOME"] = str(root / "cache")
        project = prepare_project(root, model, doc)
        log = log_dir / f"opscope-lsp-{model.factory}.log"
        try:
            cold, samples = opscope_editor_session(tools, project, doc, env, requests,
                                                   diag_runs, log, load_timeout=900)
            warm = Sample()
            for _ in range(runs):
                first, _ = opscope_editor_session(tools, project, doc, env, 0, 0, log,
                                                  load_timeout=300)
                warm.add(first)
            empty = opscope_empty_footprint(tools, root, env, log)
            ours["cold"] = Figure({"first": cold}, 1)
            ours["warm"] = Figure.timing(warm)
            ours["completion"] = Figure.latency(_ms(samples.completion),
                                                items=samples.completion_items)
            ours["hover"] = Figure.latency(_ms(samples.hover), answered=samples.hover_found)
            ours["diagnostics"] = Figure.latency(_ms(samples.diagnostics),
                                                 kind=samples.diagnostics_kind,
                                                 diagnostics=samples.diagnostics_count)
            ours["schema_key"] = Figure.latency(_ms(samples.schema_key),
                                                items=samples.schema_key_items)
            ours["schema_value"] = Figure.latency(_ms(samples.schema_value),
                                                  items=samples.schema_value_items)
            ours["schema_hover"] = Figure.latency(_ms(samples.schema_hover),
                                                  answered=samples.schema_hover_found)
            ours["schema_diagnostics"] = Figure.latency(_ms(samples.schema_diagnostics),
                                                        kind="open",
                                                        diagnostics=samples.schema_errors)
            ours["rss"] = _memory_figure(samples.memory_kb)
            ours["rss_delta"] = Figure(
                {"VmRSS": (samples.memory_kb["VmRSS"] - empty["VmRSS"]) / 1024,
                 "VmHWM": (samples.memory_kb["VmHWM"] - empty["VmHWM"]) / 1024}, 1,
                {"empty_VmRSS_MB": empty["VmRSS"] / 1024})
        except BenchError as exc:
            for key in ("cold", "warm", "completion", "hover", "diagnostics", "rss",
                        "rss_delta", *SCHEMA_KEYS):
                ours.setdefault(key, f"error: {str(exc)[:200]}")

    peer: dict[str, object] = {}
    if tools.node is None or tools.yaml_ls is None:
        for key in ("completion", "hover", "diagnostics", "rss", "rss_delta"):
            peer[key] = "n/a (yaml-language-server not installed)"
    else:
        folder = root / "yaml-ls"
        folder.mkdir()
        (folder / "quant.yaml").write_text(doc.text)
        try:
            samples, empty = yaml_ls_session(tools, folder, names, doc, requests, diag_runs,
                                             log_dir / f"yaml-ls-{model.factory}.log")
            peer["completion"] = Figure.latency(_ms(samples.completion),
                                                items=samples.completion_items)
            peer["hover"] = Figure.latency(_ms(samples.hover), answered=samples.hover_found)
            peer["diagnostics"] = Figure.latency(_ms(samples.diagnostics),
                                                 diagnostics=samples.diagnostics_count,
                                                 note="200 ms debounce subtracted")
            peer["rss"] = _memory_figure(samples.memory_kb)
            peer["rss_delta"] = Figure(
                {"VmRSS": (samples.memory_kb["VmRSS"] - empty["VmRSS"]) / 1024,
                 "VmHWM": (samples.memory_kb["VmHWM"] - empty["VmHWM"]) / 1024}, 1,
                {"empty_VmRSS_MB": empty["VmRSS"] / 1024})
        except BenchError as exc:
            for key in ("completion", "hover", "diagnostics", "rss", "rss_delta"):
                peer.setdefault(key, f"error: {str(exc)[:200]}")

    yls = "yaml-language-server + schema"
    rows.append(Row(*m, "(c) warm start: spawn to first completion", "s", ours["warm"],
                    "ModelInspector(graph) script", inspector_script,
                    note="index cached; peer re-runs the Python inspector from the nn.Module"))
    rows.append(Row(*m, "(c) cold start: spawn to first completion", "s", ours["cold"],
                    note="no cache: the server runs the inspect worker first"))
    rows.append(Row(*m, f"(d) completion, {doc.pattern_count}-pattern config", "ms",
                    ours["completion"], yls, peer["completion"]))
    rows.append(Row(*m, f"(d) hover, {doc.pattern_count}-pattern config", "ms", ours["hover"],
                    yls, peer["hover"]))
    rows.append(Row(*m, f"(d) diagnostics, {doc.pattern_count} patterns", "ms",
                    ours["diagnostics"], yls + " (validation)", peer["diagnostics"],
                    note="opscope: didOpen to publishDiagnostics (it checks opened documents "
                         "at once, edits after a 200 ms debounce); yaml-ls: didChange to "
                         "publish minus its fixed 200 ms timer (it debounces opens too)"))
    schema_note = "coreai-opt's models, in the same document, model loaded; opscope only"
    rows.append(Row(*m, "(d) schema key completion under `op_state_spec: weight:`", "ms",
                    ours["schema_key"], note=schema_note))
    rows.append(Row(*m, "(d) schema value completion after `dtype: `", "ms",
                    ours["schema_value"], note=schema_note))
    rows.append(Row(*m, "(d) schema hover on a spec key", "ms", ours["schema_hover"],
                    note=schema_note))
    rows.append(Row(*m, "(d) schema diagnostics, config with 3 schema errors", "ms",
                    ours["schema_diagnostics"],
                    note="didOpen to publishDiagnostics, all of the document's checks"))
    rows.append(Row(*m, "(f) server RSS, model loaded", "MB", ours["rss"], yls,
                    peer["rss"]))
    rows.append(Row(*m, "(f) server RSS beyond empty footprint", "MB", ours["rss_delta"],
                    yls, peer["rss_delta"]))
    return rows


SCHEMA_KEYS = ("schema_key", "schema_value", "schema_hover", "schema_diagnostics")


def _ms(sample: Sample) -> Sample:
    return Sample([v * 1000 for v in sample.values])


def _memory_figure(status_kb: dict) -> Figure:
    return Figure({"VmRSS": status_kb["VmRSS"] / 1024, "VmHWM": status_kb["VmHWM"] / 1024}, 1)
