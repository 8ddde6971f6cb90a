"""The export helper as `opscope export` runs it: `python -m opscope_export`, exit 0 with one
JSON line, or exit 1 with one clear message and no traceback, and no archive written."""

import json
import os
import subprocess
import textwrap

import pytest

from conftest import PYTHON_DIR, build_fixture_model, get_fixture, helper_command, helper_env

USER_MODEL = textwrap.dedent('''
    import torch
    import torch.nn as nn

    class Tiny(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)

        def forward(self, x):
            return self.fc(x)

    class DataDependent(nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                return x + 1
            return x - 1

    class Embedder(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(100, 4)

        def forward(self, ids):
            return self.embed(ids)

    def broken():
        raise ValueError("the checkpoint path is wrong")

    def not_a_model():
        return 42

    tiny_instance = Tiny()
''')


@pytest.fixture()
def project(tmp_path):
    (tmp_path / "user_models.py").write_text(USER_MODEL)
    return tmp_path


def run_helper(cwd, *args, as_folder=False, **env):
    return subprocess.run(helper_command(*args, as_folder=as_folder), cwd=cwd,
                          env=helper_env(**env), capture_output=True, text=True, timeout=300)


def assert_user_error(proc, *fragments):
    assert proc.returncode == 1, proc.stderr
    message = proc.stderr.strip()
    # The protocol `opscope export` relies on: exactly one line, the message.
    assert len(message.splitlines()) == 1, message
    assert message.startswith("opscope-export: error: "), message
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in:\n{message}"
    assert proc.stdout.strip() == ""


def test_exports_a_module_by_dotted_name_and_reports_json(project):
    proc = run_helper(project, "user_models:Tiny", "--input", "2x4", "-o", "tiny.pt2")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["archive"] == str(project / "tiny.pt2")
    assert report["model_type"] == "user_models.Tiny"
    assert report["inputs"] == [{"shape": [2, 4], "dtype": "float32"}]
    assert os.path.getsize(project / "tiny.pt2") > 0
    assert not [p for p in os.listdir(project) if p.startswith(".opscope-export-")]


def _archive_records(path) -> list[str]:
    import zipfile

    with zipfile.ZipFile(path) as archive:
        return [name.split("/", 1)[1] for name in archive.namelist()]


def test_graph_mode_archive_has_no_eager_record_and_loads(project):
    """The default is the plain torch.export archive (the model is not run a second time)."""
    import torch

    proc = run_helper(project, "user_models:Tiny", "--input", "2x4", "-o", "tiny.pt2")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["modes"] == ["graph"]
    assert "extra/opscope_eager.json" not in _archive_records(project / "tiny.pt2")
    program = torch.export.load(str(project / "tiny.pt2"))
    assert [n.target for n in program.graph.nodes if n.op == "call_function"] == [
        torch.ops.aten.linear.default]


def test_eager_mode_archive_keeps_the_eager_record_and_loads(project):
    """--mode eager alone skips torch.export (eager mode reads only its record); both modes
    give a torch.export archive that also holds the record (and, with weights, runs)."""
    import torch

    proc = run_helper(project, "user_models:Tiny", "--input", "2x4", "--mode", "eager",
                      "-o", "eager.pt2")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["modes"] == ["eager"]
    records = _archive_records(project / "eager.pt2")
    assert "extra/opscope_eager.json" in records and "models/model.json" not in records

    proc = run_helper(project, "user_models:Tiny", "--input", "2x4", "--mode", "graph",
                      "--mode", "eager", "--with-weights", "-o", "tiny.pt2")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["modes"] == ["graph", "eager"]
    assert "extra/opscope_eager.json" in _archive_records(project / "tiny.pt2")
    assert torch.export.load(str(project / "tiny.pt2")).module()(torch.ones(2, 4)).shape == (2, 2)


def test_unknown_mode_is_a_usage_error(project):
    proc = run_helper(project, "user_models:Tiny", "--input", "2x4", "--mode", "fast",
                      "-o", "tiny.pt2")
    assert_user_error(proc, "--mode", "graph", "eager")
    assert not (project / "tiny.pt2").exists()


def test_exports_by_file_path_and_instance(project, tmp_path):
    other = tmp_path / "elsewhere"
    other.mkdir()
    proc = run_helper(other, f"{project}/user_models.py:tiny_instance", "-i", "1x4",
                      "-o", "inst.pt2", as_folder=True)
    assert proc.returncode == 0, proc.stderr
    assert (other / "inst.pt2").exists()
    assert json.loads(proc.stdout)["model_type"] == "user_models.Tiny"


def test_user_files_named_like_the_standard_library(project):
    """A project file `inspect.py` must not break the helper itself, and importing it as
    a target says why it cannot work."""
    (project / "inspect.py").write_text(USER_MODEL)
    proc = run_helper(project, "inspect.py:Tiny", "-i", "1x4", "-o", "x.pt2", as_folder=True)
    assert_user_error(proc, "found another module first", "rename the file")


def test_input_specs_make_the_documented_tensors():
    import torch
    from opscope_export.specs import make_inputs, parse_input_spec

    torch.manual_seed(0)
    args, kwargs = make_inputs([parse_input_spec(text) for text in (
        "1x3x4x4", "1x8:int64", "1x64:int64:0..100", "2x4:float16", "mask=1x8:bool")])
    image, zeros, ids, half = args
    assert image.shape == (1, 3, 4, 4) and image.dtype == torch.float32 and image.std() > 0
    assert zeros.dtype == torch.int64 and not zeros.any()
    assert ids.dtype == torch.int64 and 0 <= ids.min() and ids.max() < 100 and ids.unique().numel() > 1
    assert half.dtype == torch.float16 and half.shape == (2, 4)
    assert kwargs["mask"].dtype == torch.bool and kwargs["mask"].all()


def test_module_that_cannot_be_imported_names_where_it_looked(project):
    proc = run_helper(project, "no_such_models:Tiny", "-i", "1x4", "-o", "x.pt2")
    assert_user_error(proc, "cannot import module 'no_such_models'", str(project))
    assert not (project / "x.pt2").exists()


def test_missing_factory_lists_candidates(project):
    proc = run_helper(project, "user_models:Tinny", "-i", "1x4", "-o", "x.pt2")
    assert_user_error(proc, "has no attribute 'Tinny'", "Tiny")


def test_failing_factory_shows_its_exception(project):
    proc = run_helper(project, "user_models:broken", "-i", "1x4", "-o", "x.pt2")
    assert_user_error(proc, "ValueError: the checkpoint path is wrong")


def test_factory_returning_something_else(project):
    proc = run_helper(project, "user_models:not_a_model", "-i", "1x4", "-o", "x.pt2")
    assert_user_error(proc, "returned a int, expected an nn.Module")


def test_export_failure_shows_first_lines_and_hints(project):
    proc = run_helper(project, "user_models:DataDependent", "-i", "1x4", "-o", "x.pt2")
    assert_user_error(proc, "torch.export failed", "data-dependent", "strict=False")
    assert len(proc.stderr) < 1500
    assert not (project / "x.pt2").exists()


def test_missing_inputs_and_bad_specs_explain_the_syntax(project):
    assert_user_error(run_helper(project, "user_models:Tiny", "-o", "x.pt2"),
                      "no example inputs", "forward(x)")
    assert_user_error(run_helper(project, "user_models:Tiny", "-i", "2x4:complex", "-o", "x.pt2"),
                      "unknown dtype 'complex'")
    assert_user_error(run_helper(project, "user_models:Tiny", "-i", "2x4:float32:0..3",
                                 "-o", "x.pt2"), "needs an integer dtype")
    assert_user_error(run_helper(project, "user_models.Tiny", "-o", "x.pt2"), "missing ':factory'")


def test_debug_mode_shows_the_traceback(project):
    proc = run_helper(project, "user_models:broken", "-i", "1x4", "-o", "x.pt2", OPSCOPE_DEBUG="1")
    assert proc.returncode == 1
    assert "Traceback" in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("opscope-export: error: ")


def test_probe_reports_torch_version(project):
    proc = run_helper(project, "--probe")
    assert proc.returncode == 0, proc.stderr
    info = json.loads(proc.stdout)
    import torch

    assert info["ok"] is True and info["torch"] == torch.__version__


@pytest.mark.parametrize("fake_torch, expected", [
    ("__version__ = '2.1.2'\n", "too old"),
    ("raise ImportError('No module named torch')\n", "torch is not installed"),
])
def test_probe_and_export_detect_old_or_missing_torch(tmp_path, project, fake_torch, expected):
    shadow = tmp_path / "shadow" / "torch"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text(fake_torch)
    env = {"PYTHONPATH": f"{shadow.parent}{os.pathsep}{helper_env()['PYTHONPATH']}"}
    probe = subprocess.run(helper_command("--probe"), cwd=project, capture_output=True,
                           text=True, env={**helper_env(), **env}, timeout=120)
    assert probe.returncode == 1
    info = json.loads(probe.stdout)
    assert info["ok"] is False and expected in info["error"]
    export = subprocess.run(helper_command("user_models:Tiny", "-i", "1x4", "-o", "x.pt2"),
                            cwd=project, capture_output=True, text=True,
                            env={**helper_env(), **env}, timeout=120)
    assert_user_error(export, expected)


@pytest.mark.parametrize("name", ["my_model", "hf_bert"])
def test_archive_with_weights_keeps_the_example_inputs(name, tmp_path):
    """--with-weights: real tensors throughout, so the archive keeps the example inputs the
    oracle rebuilds (the default, weightless, keeps only their shapes and dtypes)."""
    import torch

    archive = str(tmp_path / f"{name}.pt2")
    command = helper_command(*get_fixture(name).export_args(archive), "--with-weights")
    proc = subprocess.run(command, cwd=PYTHON_DIR, env=helper_env(), capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    # First: building it imports the model's output classes, which loading the program needs.
    _, expected = build_fixture_model(name)
    program = torch.export.load(archive)
    args, kwargs = program.example_inputs
    assert kwargs == {}
    assert len(args) == len(expected)
    for stored, rebuilt in zip(args, expected):
        assert stored.dtype == rebuilt.dtype and torch.equal(stored, rebuilt)


def test_saved_program_json_is_byte_for_byte_torchs(tmp_path):
    """save_program writes the program's JSON a node at a time (a 57,883-op graph's JSON whole
    was its peak memory): the bytes must be exactly those torch.export.save writes, for a graph
    long enough to be streamed (BERT's) and for infinities and NaN, which torch spells as
    strings."""
    import zipfile

    import torch

    from opscope_export.save import _STREAMED_LENGTH, save_program

    class Infinite(torch.nn.Module):
        def forward(self, x):
            masked = x.masked_fill(x > 0, float("-inf")).clamp(max=float("inf"))
            return masked, x.new_full((2,), float("nan"))

    bert, bert_inputs = build_fixture_model("hf_bert")
    programs = {"bert": torch.export.export(bert, tuple(bert_inputs)),
                "infinite": torch.export.export(Infinite(), (torch.randn(2, 3),))}
    assert len(programs["bert"].graph.nodes) > 2 * _STREAMED_LENGTH
    for name, program in programs.items():
        ours, torchs = tmp_path / f"{name}-ours.pt2", tmp_path / f"{name}-torch.pt2"
        save_program(program, str(ours), weightless=True)
        torch.export.save(program, str(torchs))
        record = lambda path: zipfile.ZipFile(path).read(  # noqa: E731
            f"{path.stem}/models/model.json")
        assert record(ours) == record(torchs), name
