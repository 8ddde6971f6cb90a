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

pytestmark = pytest.mark.skipif(not OPSCOPE, reason="OPSCOPE_BIN is not set (run through ctest)")


def worker_available() -> bool:
    beside = Path(OPSCOPE).parent / "opscope-inspect"
    built = os.environ.get("OPSCOPE_INSPECT_BIN", "")
    return beside.exists() or (bool(built) and Path(built).exists())


needs_worker = pytest.mark.skipif(not worker_available(), reason="opscope-inspect not built")


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

    cache_env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    target = ["fixtures.reference:MyModel", "--input", "1x10"]
    graph = opscope(env, "summary", *target, "--mode", "graph", extra_env=cache_env)
    assert "exporting" in graph.stderr and "linear1" in ok(graph)
    eager = opscope(env, "summary", *target, "--mode", "eager", extra_env=cache_env)
    assert "exporting" in eager.stderr and "linear1.linear" in ok(eager)
    graph_again = opscope(env, "summary", *target, "--mode", "graph", extra_env=cache_env)
    assert "exporting" not in graph_again.stderr and ok(graph_again) == ok(graph)
