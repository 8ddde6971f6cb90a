"""The real `opscope` binary (and its opscope-inspect worker and export helper) on real
archives of the reference models, judged by coreai-opt's own ModelInspector.

Run by ctest (cli.end_to_end) with OPSCOPE_BIN and OPSCOPE_SOURCE_DIR set."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

OPSCOPE = os.environ.get("OPSCOPE_BIN", "")
SOURCE_DIR = Path(os.environ.get("OPSCOPE_SOURCE_DIR", Path(__file__).resolve().parents[3]))
PYTHON_DIR = SOURCE_DIR / "python"  # fixtures.reference lives here; ops' sources are relative to it


@pytest.fixture(scope="session", autouse=True)
def opscope_built():
    """Every test here runs the binary: without it they fail (a skip would test nothing)."""
    if not OPSCOPE:
        pytest.fail("OPSCOPE_BIN is not set: run through ctest (cli.end_to_end), or set it to "
                    "the built opscope")
    if not Path(OPSCOPE).is_file():
        pytest.fail(f"opscope not found at {OPSCOPE} (OPSCOPE_BIN): build it first")


def worker_available() -> bool:
    beside = Path(OPSCOPE).parent / "opscope-inspect"
    built = os.environ.get("OPSCOPE_INSPECT_BIN", "")
    return beside.exists() or (bool(built) and Path(built).exists())


@pytest.fixture(scope="session")
def worker_built():
    if not worker_available():
        pytest.fail(f"opscope-inspect not found beside {OPSCOPE} nor at OPSCOPE_INSPECT_BIN: "
                    "build it first")


needs_worker = pytest.mark.usefixtures("worker_built")


@pytest.fixture(scope="session")
def env(tmp_path_factory):
    cache = tmp_path_factory.mktemp("cache")
    environment = dict(os.environ)
    environment["XDG_CACHE_HOME"] = str(cache)
    environment["VIRTUAL_ENV"] = str(Path(sys.executable).parent.parent)
    environment.pop("NO_COLOR", None)
    environment.pop("COLUMNS", None)
    if os.environ.get("OPSCOPE_INSPECT_BIN") and Path(os.environ["OPSCOPE_INSPECT_BIN"]).exists():
        environment["OPSCOPE_INSPECT"] = os.environ["OPSCOPE_INSPECT_BIN"]
    return environment


def opscope(env, *args, cwd=PYTHON_DIR, extra_env=None):
    environment = dict(env)
    environment.update(extra_env or {})
    return subprocess.run([OPSCOPE, *map(str, args)], cwd=cwd, env=environment,
                          capture_output=True, text=True, timeout=600)


def ok(result) -> str:
    assert result.returncode == 0, f"exit {result.returncode}: {result.stderr}"
    return result.stdout


@pytest.fixture(scope="session")
def archives(env, tmp_path_factory):
    """MyModel and SomeModel exported by `opscope export` (the real helper)."""
    out = tmp_path_factory.mktemp("archives")
    made = {}
    for name, target, spec in [("my_model", "fixtures.reference:MyModel", "1x10"),
                               ("some_model", "fixtures.reference:some_model", "1x3x32x32")]:
        path = out / f"{name}.pt2"
        ok(opscope(env, "export", target, "--input", spec, "-o", path, "--quiet"))
        assert path.stat().st_size > 0
        made[name] = path
    return made


@pytest.fixture(scope="session")
def oracle():
    """coreai-opt's ModelInspector on the same models, seen from PYTHON_DIR."""
    import torch

    sys.path.insert(0, str(PYTHON_DIR))
    from coreai_opt.inspection import ModelInspector
    from coreai_opt.quantization import Quantizer
    from fixtures import reference

    previous = os.getcwd()
    os.chdir(PYTHON_DIR)
    try:
        inspectors = {}
        for name, model, example in [("my_model", reference.MyModel(), torch.randn(1, 10)),
                                     ("some_model", reference.some_model(),
                                      torch.randn(1, 3, 32, 32))]:
            for compressor in ("quantizer", "none"):
                inspectors[name, compressor] = ModelInspector(
                    model, (example,), execution_mode="graph",
                    compressor=Quantizer if compressor == "quantizer" else None)
        summaries = {key: insp.format_summary(colorize=False) for key, insp in inspectors.items()}
        colored = {key: insp.format_summary(colorize=True) for key, insp in inspectors.items()}
    finally:
        os.chdir(previous)
    return {"inspectors": inspectors, "summaries": summaries, "colored": colored}


@needs_worker
@pytest.mark.parametrize("model", ["my_model", "some_model"])
@pytest.mark.parametrize("compressor", ["quantizer", "none"])
def test_summary_is_coreai_opts_text(env, archives, oracle, model, compressor):
    text = ok(opscope(env, "summary", archives[model], "--compressor", compressor, "--quiet"))
    assert text == oracle["summaries"][model, compressor] + "\n"


@needs_worker
def test_color_is_forced_by_flag_and_matches_rich(env, archives, oracle):
    text = ok(opscope(env, "summary", archives["my_model"], "--compressor", "quantizer", "--color"))
    assert text == oracle["colored"]["my_model", "quantizer"] + "\n"
    plain = ok(opscope(env, "summary", archives["my_model"], "--compressor", "quantizer"))
    assert "\x1b[" not in plain  # not a terminal: no colour by default


def names_of(rows):
    return [row["op_name"] for row in rows]


@needs_worker
@pytest.mark.parametrize("flag,value,method", [
    ("--op-type", "linear", "get_matched_ops_for_op_type"),
    ("--op-type", "relu", "get_matched_ops_for_op_type"),
    ("--op-name", "conv2d.*", "get_matched_ops_for_op_name"),
    ("--op-name", ".*", "get_matched_ops_for_op_name"),
    ("--module-name", "conv[12]", "get_matched_ops_for_module_name"),
    ("--module-name", "", "get_matched_ops_for_module_name"),
    ("--module-type", "torch.nn.modules.conv.Conv2d", "get_matched_ops_for_module_type"),
])
@pytest.mark.parametrize("compressor", ["quantizer", "none"])
def test_query_matches_model_inspector(env, archives, oracle, flag, value, method, compressor):
    rows = json.loads(ok(opscope(env, "query", archives["some_model"], flag, value,
                                 "--compressor", compressor, "--json", "--quiet")))
    expected = getattr(oracle["inspectors"]["some_model", compressor], method)(value)
    assert names_of(rows) == [op.op_name for op in expected]
    for row, op in zip(rows, expected):
        assert row["op_type"] == op.op_type
        assert [(m["module_name"], m["module_type"]) for m in row["module_stack"]] == [
            (m.module_name, m.module_type) for m in op.module_stack]


@needs_worker
def test_query_json_row_and_text_line(env, archives):
    rows = json.loads(ok(opscope(env, "query", archives["my_model"], "--op-type", "linear",
                                 "--compressor", "quantizer", "--json")))
    assert names_of(rows) == ["linear", "linear_1"]
    first = rows[0]
    assert first["states"] == ["weight", "bias"]
    assert first["inputs"][0] == {"position": 0, "producer": "x", "slot": 0, "is_state": False}
    assert first["outputs"] == [{"slot": 0, "consumers": ["relu"]}]
    assert first["source"]["file"] == "fixtures/reference.py"
    text = ok(opscope(env, "query", archives["my_model"], "--op-name", "linear_1"))
    line = text.strip()
    assert line.startswith("linear_1 [linear]  linear2 (torch.nn.modules.linear.Linear)  "
                           "fixtures/reference.py:")


@needs_worker
def test_inputs_of_concat_come_from_bn1_and_conv2(env, archives):
    text = ok(opscope(env, "inputs", archives["some_model"], "conc"))
    lines = text.splitlines()
    assert lines[0].startswith("conc (")
    assert lines[1] == "  input 0: relu [relu]"
    assert lines[2].startswith("    from bn1 (torch.nn.modules.batchnorm.BatchNorm2d)")
    assert lines[3] == "  input 1: relu_1 [relu]"
    assert lines[4].startswith("    from conv2 (torch.nn.modules.conv.Conv2d)")
    data = json.loads(ok(opscope(env, "inputs", archives["some_model"], "conc", "--json")))
    assert [i["origins"][0]["module_name"] for i in data["inputs"]] == ["bn1", "conv2"]


@needs_worker
def test_index_file_answers_exactly_like_the_archive(env, archives, tmp_path):
    index_file = tmp_path / "some.index.json"
    ok(opscope(env, "index", archives["some_model"], "-o", index_file, "--quiet"))
    for args in (["summary", "--compressor", "quantizer"], ["summary", "--json"],
                 ["query", "--module-name", "conv.*", "--json"], ["query", "--op-type", "relu"],
                 ["inputs", "conc"], ["inputs", "linear", "--json"]):
        from_archive = ok(opscope(env, args[0], archives["some_model"], *args[1:], "--quiet"))
        from_index = ok(opscope(env, args[0], index_file, *args[1:]))
        assert from_index == from_archive, args


@needs_worker
def test_archive_index_is_cached(env, archives, tmp_path):
    cache_env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    first = opscope(env, "summary", archives["my_model"], extra_env=cache_env)
    assert "inspecting" in first.stderr
    second = opscope(env, "summary", archives["my_model"], extra_env=cache_env)
    assert second.stdout == first.stdout
    assert "inspecting" not in second.stderr  # answered from the cache
    assert list((tmp_path / "cache" / "opscope" / "index").glob("*-graph.json"))


def test_missing_model_names_the_file(env, tmp_path):
    result = opscope(env, "summary", tmp_path / "nope.pt2")
    assert result.returncode == 1
    assert f"{tmp_path / 'nope.pt2'}: no such file" in result.stderr


def test_not_an_archive(env, tmp_path):
    junk = tmp_path / "notes.txt"
    junk.write_text("hello")
    result = opscope(env, "summary", junk)
    assert result.returncode == 1
    assert f"{junk}: neither a torch.export archive (.pt2) nor an opscope index file" in result.stderr


def test_bad_regex_reports_the_column(env, tmp_path):
    result = opscope(env, "query", tmp_path / "any.pt2", "--op-name", "layer[1")
    assert result.returncode == 1
    assert "--op-name 'layer[1': invalid regex at column 6: missing ]" in result.stderr
    python_only = opscope(env, "query", tmp_path / "any.pt2", "--module-name", "layer(?!1).*")
    assert python_only.returncode == 1
    assert "negative look-ahead" in python_only.stderr and "column 6" in python_only.stderr


def test_usage_errors_exit_2(env):
    unknown = opscope(env, "sumary", "m.pt2")
    assert unknown.returncode == 2
    assert "unknown command 'sumary'; did you mean 'summary'?" in unknown.stderr
    bad_option = opscope(env, "query", "m.pt2", "--op_type", "linear")
    assert bad_option.returncode == 2 and "unknown option --op_type" in bad_option.stderr
    graph_palettizer = opscope(env, "summary", "m.pt2", "--compressor", "kmeans_palettizer")
    assert graph_palettizer.returncode == 2 and "--mode eager" in graph_palettizer.stderr
    for command in ("summary", "query", "inputs", "index", "export"):
        helped = opscope(env, command, "--help")
        assert helped.returncode == 0 and helped.stdout.startswith(f"usage: opscope {command} ")


@needs_worker
def test_worker_crash_and_missing_worker_are_explained(env, archives, tmp_path):
    crasher = tmp_path / "crashing-inspect"
    crasher.write_text("#!/bin/sh\nkill -SEGV $$\n")
    crasher.chmod(0o755)
    fresh = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    crashed = opscope(env, "summary", archives["my_model"],
                      extra_env={**fresh, "OPSCOPE_INSPECT": str(crasher)})
    assert crashed.returncode == 1
    assert "crashed with SIGSEGV" in crashed.stderr
    assert str(archives["my_model"]) in crashed.stderr
    missing = opscope(env, "summary", archives["my_model"],
                      extra_env={**fresh, "OPSCOPE_INSPECT": str(tmp_path / "no-such-worker")})
    assert missing.returncode == 1
    assert "cannot run the inspection worker" in missing.stderr


def test_export_errors_come_back_as_one_line(env, tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("def build():\n    raise RuntimeError('boom in user code')\n")
    result = opscope(env, "export", f"{broken}:build", "--input", "1x3", "-o", tmp_path / "b.pt2")
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1].startswith(f"opscope: exporting {broken}:build: ")
    assert "boom in user code" in result.stderr


@needs_worker
def test_demo_command_on_the_example_matches_coreai_opt(env, tmp_path):
    """scripts/demo.sh: a Python target exported into the cache, then inspected."""
    import torch

    cache_env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    args = ["summary", "examples/resnet/model.py:build", "--input", "1x3x64x64",
            "--compressor", "quantizer"]
    first = opscope(env, *args, cwd=SOURCE_DIR, extra_env=cache_env)
    text = ok(first)
    assert "exporting examples/resnet/model.py:build" in first.stderr

    sys.path.insert(0, str(SOURCE_DIR / "examples" / "resnet"))
    import model as example
    from coreai_opt.inspection import ModelInspector
    from coreai_opt.quantization import Quantizer

    previous = os.getcwd()
    os.chdir(SOURCE_DIR)
    try:
        expected = ModelInspector(example.build(), (torch.randn(1, 3, 64, 64),),
                                  execution_mode="graph", compressor=Quantizer).format_summary(
                                      colorize=False)
    finally:
        os.chdir(previous)
    assert text == expected + "\n"

    again = opscope(env, *args, cwd=SOURCE_DIR, extra_env=cache_env)
    assert ok(again) == text
    assert "exporting" not in again.stderr  # the export is cached by target, inputs, sources


@needs_worker
def test_graph_export_refuses_eager_mode_and_the_cache_keeps_modes_apart(env, archives, tmp_path):
    """`opscope export` writes a graph-mode archive unless --mode eager: eager mode then says
    how to re-export; a Python target asked for in eager mode after graph mode is exported
    again with the eager record instead of reusing the graph-mode archive."""
    graph_only = opscope(env, "summary", archives["my_model"], "--mode", "eager")
    assert graph_only.returncode == 1
    message = graph_only.stderr.strip().splitlines()[-1]
    assert message.startswith(f"opscope: {archives['my_model']}: has no eager-mode record"), message
    assert "--mode eager -o" in message and "or use --mode graph" in message

    eager_archive = tmp_path / "eager.pt2"
    ok(opscope(env, "export", "fixtures.reference:MyModel", "--input", "1x10", "--mode", "eager",
               "-o", eager_archive, "--quiet"))
    assert "linear1.linear" in ok(opscope(env, "summary", eager_archive, "--mode", "eager"))
    # Its export skipped torch.export, so graph mode says how to get a program.
    eager_only = opscope(env, "summary", eager_archive, "--mode", "graph")
    assert eager_only.returncode == 1
    assert "holds only the eager-mode record" in eager_only.stderr
    assert "--mode graph --mode eager -o" in eager_only.stderr

    cache_env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    target = ["fixtures.reference:MyModel", "--input", "1x10"]
    graph = opscope(env, "summary", *target, "--mode", "graph", extra_env=cache_env)
    assert "exporting" in graph.stderr and "linear1" in ok(graph)
    eager = opscope(env, "summary", *target, "--mode", "eager", extra_env=cache_env)
    assert "exporting" in eager.stderr and "linear1.linear" in ok(eager)
    graph_again = opscope(env, "summary", *target, "--mode", "graph", extra_env=cache_env)
    assert "exporting" not in graph_again.stderr and ok(graph_again) == ok(graph)


def hint_command(message: str, program: str, **placeholders: str) -> list[str]:
    """The `opscope PROGRAM ...` command quoted in an error message, as argv, with its
    placeholders (TARGET, SPEC, ...) replaced by `placeholders`; the binary is the one tested."""
    import re
    import shlex

    quoted = [text for text in re.findall(r"`([^`]*)`", message)
              if text.startswith(f"opscope {program} ")]
    assert len(quoted) == 1, f"no single `opscope {program} ...` hint in: {message}"
    words = [placeholders.get(word, word) for word in shlex.split(quoted[0])]
    left = [word for word in words if word.isupper() and len(word) > 1]
    assert not left, f"placeholders {left} not filled in: {quoted[0]}"
    return words[1:]


@needs_worker
def test_both_modes_in_one_archive_and_every_export_hint_runs(env, tmp_path):
    """Issue 22: a project with a palettizer (eager) and a quantizer (graph) config needs one
    archive for both modes. `export --mode graph --mode eager` writes it; each error that
    suggests a command quotes one that works once its placeholders are filled in, and after
    running it the failing command succeeds."""
    model = {"TARGET": "fixtures.reference:MyModel", "SPEC": "1x10"}
    both = tmp_path / "both.pt2"
    result = opscope(env, "export", model["TARGET"], "--input", "1x10", "--mode", "graph",
                     "--mode", "eager", "-o", both, "--json")
    assert json.loads(ok(result).strip().splitlines()[-1])["modes"] == ["graph", "eager"]
    eager_text = ok(opscope(env, "summary", both, "--mode", "eager", "--compressor",
                            "kmeans_palettizer"))
    graph_text = ok(opscope(env, "summary", both, "--mode", "graph", "--compressor",
                            "quantizer"))
    assert "linear1.linear" in eager_text and "linear1.linear" not in graph_text
    bad = opscope(env, "export", model["TARGET"], "--input", "1x10", "--mode", "fast", "-o", both)
    assert bad.returncode == 2 and "--mode 'fast': use graph or eager" in bad.stderr

    # A graph-only archive asked for eager mode, and an eager-only one (in a folder whose name
    # needs quoting) asked for graph mode: each hint's command makes the archive serve both.
    spaced = tmp_path / "my models"
    spaced.mkdir()
    for export_mode, asked, archive in [("graph", "eager", tmp_path / "graph.pt2"),
                                        ("eager", "graph", spaced / "eager.pt2")]:
        ok(opscope(env, "export", model["TARGET"], "--input", "1x10", "--mode", export_mode,
                   "-o", archive, "--quiet"))
        failed = opscope(env, "summary", archive, "--mode", asked)
        assert failed.returncode == 1, failed.stderr
        ok(opscope(env, *hint_command(failed.stderr, "export", **model), "--quiet"))
        assert ok(opscope(env, "summary", archive, "--mode", "eager")) == \
            ok(opscope(env, "summary", both, "--mode", "eager"))
        assert ok(opscope(env, "summary", archive, "--mode", "graph")) == \
            ok(opscope(env, "summary", both, "--mode", "graph"))

    # An index file of the other mode: the `opscope index` it suggests makes the right one.
    graph_index = tmp_path / "graph.index.json"
    ok(opscope(env, "index", both, "--mode", "graph", "-o", graph_index, "--quiet"))
    failed = opscope(env, "summary", graph_index, "--mode", "eager")
    assert failed.returncode == 1, failed.stderr
    eager_index = tmp_path / "eager.index.json"
    ok(opscope(env, *hint_command(failed.stderr, "index", **{"MODEL.pt2": str(both),
                                                             "FILE": str(eager_index)})))
    assert ok(opscope(env, "summary", eager_index, "--mode", "eager")) == \
        ok(opscope(env, "summary", both, "--mode", "eager"))

    # Not an export archive at all: the example command in the hint works as written, for a
    # package.module:factory that exists.
    import torch

    not_export = tmp_path / "weights.pt2"
    torch.save({"w": torch.zeros(2)}, not_export)
    failed = opscope(env, "summary", not_export)
    assert failed.returncode == 1 and "is a torch.save file" in failed.stderr, failed.stderr
    (tmp_path / "package").mkdir()
    (tmp_path / "package" / "__init__.py").write_text("")
    (tmp_path / "package" / "module.py").write_text(
        "import torch\n"
        "def factory():\n"
        "    return torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.ReLU())\n")
    ok(opscope(env, *hint_command(failed.stderr, "export"), "--quiet", cwd=tmp_path))
    assert "conv2d" in ok(opscope(env, "summary", tmp_path / "model.pt2"))


# ---- issue 14: hostile or damaged inputs are one clear message, never a crash or a hang ----

def one_line_error(result) -> str:
    """The command failed cleanly (exit 1, not a signal) with one `opscope: ` line."""
    assert result.returncode == 1, f"exit {result.returncode}: {result.stderr}"
    lines = [line for line in result.stderr.splitlines() if not line.startswith("opscope: warning")]
    assert lines and lines[-1].startswith("opscope: "), result.stderr
    return lines[-1]


def edited_index(env, archive, path, edit):
    ok(opscope(env, "index", archive, "-o", path, "--quiet"))
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))
    return path


def bad_ops(data):
    data["modules"][1]["ops"] = [-1, 1000000000]


def parent_cycle(data):
    data["modules"][1]["parent"] = 2
    data["modules"][1]["children"] = [2]
    data["modules"][2]["parent"] = 1
    data["modules"][2]["children"] = [1]


@needs_worker
@pytest.mark.parametrize("edit", [bad_ops, parent_cycle])
def test_malformed_index_file_is_one_error_not_a_crash(env, archives, tmp_path, edit):
    index_file = edited_index(env, archives["my_model"], tmp_path / "g.json", edit)
    for args in (["query", index_file, "--op-name", ".*"], ["summary", index_file],
                 ["inputs", index_file, "linear1"]):
        message = one_line_error(opscope(env, *args))
        assert message.startswith(f"opscope: {index_file}: corrupt index file (module 1 "), message
        assert f"re-create it with `opscope index MODEL.pt2 -o {index_file}`" in message


def cached_index_files(cache):
    return sorted((cache / "opscope" / "index").glob("*-graph.json"))


@needs_worker
@pytest.mark.parametrize("damage", ["bad_ops", "truncated"])
def test_damaged_cache_entry_is_deleted_and_rebuilt(env, archives, tmp_path, damage):
    cache_env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    good = ok(opscope(env, "summary", archives["my_model"], extra_env=cache_env))
    [entry] = cached_index_files(tmp_path / "cache")
    assert entry.with_name(entry.name + ".hash").exists()
    if damage == "bad_ops":
        data = json.loads(entry.read_text())
        bad_ops(data)
        entry.write_text(json.dumps(data))
    else:
        entry.write_text(entry.read_text()[:100])
    repaired = opscope(env, "summary", archives["my_model"], "--quiet", extra_env=cache_env)
    assert ok(repaired) == good
    assert (f"opscope: warning: the cached index {entry} is damaged (it changed since it was "
            "written); deleting it and rebuilding it") in repaired.stderr
    # Rebuilt in place: the next run is a plain cache hit.
    again = opscope(env, "summary", archives["my_model"], extra_env=cache_env)
    assert ok(again) == good and "warning" not in again.stderr and "inspecting" not in again.stderr
    # `opscope index` (the language server's start) never copies a damaged entry either: it
    # checks the entry's recorded hash instead of parsing it.
    entry.write_text(entry.read_text()[:100])
    copied = tmp_path / "copy.json"
    ok(opscope(env, "index", archives["my_model"], "-o", copied, extra_env=cache_env))
    assert ok(opscope(env, "summary", copied)) == good


def test_fifo_model_is_refused_at_once(env, tmp_path):
    fifo = tmp_path / "model.pt2"
    os.mkfifo(fifo)
    for args in (["summary", fifo], ["query", fifo, "--op-type", "linear"],
                 ["index", fifo, "-o", tmp_path / "g.json"]):
        result = opscope(env, *args)  # hung forever before (timeout=600 in opscope())
        message = one_line_error(result)
        assert message.startswith(f"opscope: {fifo}: is a named pipe (FIFO), not a regular file"), \
            message


def test_fifo_config_and_project_file_are_refused_by_check(env, tmp_path):
    config = tmp_path / "quant.yaml"
    os.mkfifo(config)
    result = opscope(env, "check", config, cwd=tmp_path)
    assert result.returncode == 1
    assert f"{config}: cannot read this config file (is a named pipe (FIFO), not a regular " \
           "file" in result.stderr, result.stderr
    # The project file next to a real config.
    project = tmp_path / "project"
    project.mkdir()
    os.mkfifo(project / "opscope.yaml")
    (project / "quant.yaml").write_text("quantization_config:\n  global_config: {}\n")
    result = opscope(env, "check", project / "quant.yaml", cwd=project)  # blocked before
    said = result.stdout + result.stderr
    assert result.returncode == 1
    assert "is a named pipe (FIFO)" in said or "no model to check names against" in said, said


def test_device_and_folder_models_are_refused(env, tmp_path):
    assert "is a device, not a regular file" in one_line_error(opscope(env, "summary", "/dev/zero"))
    assert "is a folder" in one_line_error(opscope(env, "summary", tmp_path))


def peak_rss_mb(command, env) -> tuple[subprocess.CompletedProcess, float]:
    """Runs `command` in a fresh Python whose only children are it: their peak RSS."""
    probe = ("import resource, subprocess, sys, json; "
             "r = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
             "print(json.dumps([r.returncode, r.stderr, "
             "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss]))")
    out = subprocess.run([sys.executable, "-c", probe, *map(str, command)], env=env,
                         capture_output=True, text=True, timeout=600, cwd=PYTHON_DIR)
    code, stderr, rss_kb = json.loads(out.stdout)
    return subprocess.CompletedProcess(command, code, "", stderr), rss_kb / 1024


def with_model_json(src, dst, chunks, compression):
    import zipfile

    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            if info.filename.endswith("models/model.json"):
                target = zipfile.ZipInfo(info.filename, info.date_time)
                target.compress_type = compression
                with zout.open(target, "w", force_zip64=True) as out:
                    for chunk in chunks:
                        out.write(chunk)
            else:
                zout.writestr(info, zin.read(info.filename))
    return dst


@needs_worker
def test_archive_inflating_to_a_gigabyte_is_refused_in_little_memory(env, archives, tmp_path):
    import zipfile

    mib = b" " * (1 << 20)
    bomb = with_model_json(archives["my_model"], tmp_path / "bomb.pt2", (mib for _ in range(1024)),
                           zipfile.ZIP_DEFLATED)
    fresh = {**env, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    result, rss = peak_rss_mb([OPSCOPE, "summary", bomb], fresh)
    print(f"1 GiB model.json in a {bomb.stat().st_size / 1e6:.1f} MB archive: peak RSS {rss:.0f} MB")
    message = one_line_error(result)
    assert message == (f"opscope: {bomb}: record models/model.json is too large: 1073741824 bytes "
                       "(limit 536870912; set OPSCOPE_MAX_RECORD_BYTES to raise it)"), message
    assert rss < 300  # was 2.1 GB
    # Raised limit: the compression ratio still refuses it without inflating.
    raised = {**fresh, "OPSCOPE_MAX_RECORD_BYTES": str(2 << 30)}
    result, rss = peak_rss_mb([OPSCOPE, "summary", bomb], raised)
    print(f"... with OPSCOPE_MAX_RECORD_BYTES=2 GiB: peak RSS {rss:.0f} MB")
    assert "more than 200:1" in one_line_error(result) and rss < 300


EXITING_MODEL = """\
import torch
{exit_call}

def build():
    return torch.nn.Linear(4, 2)
"""


@pytest.mark.parametrize("exit_call,said", [
    ("import sys; sys.exit(0)", "importing 'exits' called sys.exit(0); nothing was exported"),
    ("import os; os._exit(0)", "the export helper exited (code 0) without writing"),
])
def test_export_that_writes_nothing_is_an_error(env, tmp_path, exit_call, said):
    model = tmp_path / "exits.py"
    model.write_text(EXITING_MODEL.format(exit_call=exit_call))
    out = tmp_path / "out.pt2"
    result = opscope(env, "export", f"{model}:build", "--input", "1x4", "-o", out)
    message = one_line_error(result)
    assert message.startswith(f"opscope: exporting {model}:build: "), message
    assert said in message
    assert "wrote" not in result.stderr and not out.exists()
    # An archive left by an earlier export does not pass for a new one.
    out.write_bytes(b"an older archive")
    again = opscope(env, "export", f"{model}:build", "--input", "1x4", "-o", out)
    assert said in one_line_error(again)
    assert out.read_bytes() == b"an older archive"


def test_export_disk_full_says_so(env, tmp_path):
    """The write fails with ENOSPC (made to, by the model's module: mounting a full file
    system needs root): the message says disk full and where, not a crash."""
    model = tmp_path / "fills.py"
    model.write_text(
        "import errno, torch\n"
        "import opscope_export.export as export\n"
        "def full(program, path, extra_files=None, **options):\n"
        "    raise OSError(errno.ENOSPC, 'No space left on device', path)\n"
        "export.save_program = full\n"
        "def build():\n"
        "    return torch.nn.Linear(4, 2)\n")
    result = opscope(env, "export", f"{model}:build", "--input", "1x4", "-o", tmp_path / "o.pt2")
    message = one_line_error(result)
    assert "cannot write the archive: disk full (ENOSPC): no space left on the device writing " \
           f"in {tmp_path}/.opscope-export-" in message, message


def mount_or_skip(kind_args, where):
    if os.geteuid() != 0:
        pytest.skip("mounting a small or read-only file system needs root")
    where.mkdir(exist_ok=True)
    done = subprocess.run(["mount", *kind_args, str(where)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount: {done.stderr.strip()}")


@pytest.fixture
def small_tmpfs(tmp_path):
    where = tmp_path / "small"
    mount_or_skip(["-t", "tmpfs", "-o", "size=8k", "tmpfs"], where)  # MyModel: 13 kB
    yield where
    subprocess.run(["umount", str(where)], check=False)


@pytest.fixture
def read_only_dir(tmp_path):
    where = tmp_path / "read-only"
    mount_or_skip(["-t", "tmpfs", "-o", "ro,size=64k", "tmpfs"], where)
    yield where
    subprocess.run(["umount", str(where)], check=False)


def test_export_to_a_full_disk_says_so(env, tmp_path, small_tmpfs):
    out = small_tmpfs / "model.pt2"
    result = opscope(env, "export", "fixtures.reference:MyModel", "--input", "1x10", "-o", out)
    message = one_line_error(result)
    assert "disk full (ENOSPC)" in message and str(small_tmpfs) in message, message
    assert "crashed" not in message


def test_export_to_a_read_only_folder_says_so(env, tmp_path, read_only_dir):
    out = read_only_dir / "model.pt2"
    result = opscope(env, "export", "fixtures.reference:MyModel", "--input", "1x10", "-o", out)
    message = one_line_error(result)
    assert "read-only file system (EROFS)" in message and str(read_only_dir) in message, message


@needs_worker
def test_read_only_cache_folder_says_so(env, archives, read_only_dir):
    result = opscope(env, "summary", archives["my_model"],
                     extra_env={"XDG_CACHE_HOME": str(read_only_dir)})
    message = one_line_error(result)
    assert f"{read_only_dir}/opscope" in message and "Read-only file system" in message, message


@needs_worker
def test_cache_entry_from_an_older_opscope_is_checked_once(env, archives, tmp_path):
    """An entry without a recorded hash is parsed once (and repaired if damaged)."""
    cache_env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    good = ok(opscope(env, "summary", archives["my_model"], extra_env=cache_env))
    [entry] = cached_index_files(tmp_path / "cache")
    entry.with_name(entry.name + ".hash").unlink()
    data = json.loads(entry.read_text())
    parent_cycle(data)
    entry.write_text(json.dumps(data))
    repaired = opscope(env, "summary", archives["my_model"], "--quiet", extra_env=cache_env)
    assert ok(repaired) == good
    assert f"the cached index {entry} is damaged ({entry}: corrupt index file (module 1" in \
        repaired.stderr
