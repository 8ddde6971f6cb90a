"""Eager-only hard cases (eager_models.py): calls that leave no exported node, untracked
tensors, a module re-called downstream, in-place through a view, multi-output ops crossing a
module boundary. Each is exported in-process with the record `opscope export` stores
(eager_trace.eager_extra_files), indexed by `opscope-inspect --mode eager`, and compared with
coreai-opt's eager ModelInspector for every compressor. Also: the worker's messages when
eager mode cannot be used."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.join(os.path.dirname(os.path.dirname(HERE)), "python")
for path in (HERE, PYTHON_DIR):
    if path not in sys.path:
        sys.path.insert(0, path)

import eager_canonical  # noqa: E402
import eager_models  # noqa: E402


def run_worker(inspect_worker: str, archive: str, index_path: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [inspect_worker, archive, "--mode", "eager", "-o", index_path],
        capture_output=True, text=True, timeout=300,
    )


def save_archive(model, args, archive: str, extra_files: dict | None) -> None:
    import torch

    with torch.no_grad():
        program = torch.export.export(model, args)
    torch.export.save(program, archive, extra_files=extra_files)


@pytest.fixture(scope="module")
def case_index(inspect_worker, tmp_path_factory):
    from opscope_export.eager_trace import eager_extra_files

    cache: dict[str, dict] = {}

    def get(name: str) -> dict:
        if name not in cache:
            directory = tmp_path_factory.mktemp(name)
            archive, index_path = str(directory / f"{name}.pt2"), str(directory / "index.json")
            model, args = eager_models.build(name)
            save_archive(model, args, archive, eager_extra_files(model, args))
            proc = run_worker(inspect_worker, archive, index_path)
            assert proc.returncode == 0, proc.stderr
            cache[name] = eager_canonical.load_index(index_path)
        return cache[name]

    return get


@pytest.mark.parametrize("compressor", eager_canonical.COMPRESSORS)
@pytest.mark.parametrize("name", sorted(eager_models.CASES))
def test_eager_case_matches_coreai_opt(name, compressor, case_index, coreai_opt):
    from coreai_opt.inspection import ModelInspector

    model, args = eager_models.build(name)
    inspector = ModelInspector(
        model, args, execution_mode="eager", compressor=eager_canonical.compressor_class(compressor)
    )
    expected = eager_canonical.from_oracle(inspector.summary)
    actual = eager_canonical.from_index(case_index(name), compressor)
    assert actual == expected, eager_canonical.first_difference(expected, actual)


def test_names_that_export_drops_are_present(case_index):
    """The reason eager mode runs the model: these calls have no node in the archive."""
    ops = {op["name"]: op for op in case_index("tensor_methods")["ops"] if op["kind"] == "call"}
    assert {"size", "contiguous", "contiguous_1", "drop.dropout"} <= set(ops)
    assert ops["mul"]["inputs"][0] == {"producer": "contiguous_1", "slot": 0}


def test_untracked_tensor_reaches_module_boundary(case_index):
    index = case_index("untracked")
    scale = next(m for m in index["modules"] if m["name"] == "scale")
    ops = {op["name"]: op for op in index["ops"]}
    untracked = ops["scale.mul"]["inputs"][1]["producer"]
    assert untracked.startswith("untracked_")
    assert scale["inputs"] == [[0, [["scale.mul", 0]]], [1, [["scale.mul", 1]]]]


def test_archive_without_record_is_a_clear_error(inspect_worker, tmp_path):
    model, args = eager_models.build("tensor_methods")
    archive = str(tmp_path / "plain.pt2")
    save_archive(model, args, archive, None)
    proc = run_worker(inspect_worker, archive, str(tmp_path / "index.json"))
    assert proc.returncode == 1
    message = proc.stderr.strip()
    assert message.startswith(archive + ": has no eager-mode record")
    assert "opscope export" in message and "--mode graph" in message
    assert not os.path.exists(tmp_path / "index.json")


def test_model_that_fails_to_run_reports_why(inspect_worker, tmp_path):
    from opscope_export.eager_trace import EXTRA_FILE_NAME, eager_extra_files

    model, args = eager_models.build("tensor_methods")
    extra = eager_extra_files(model, (args[0][:, :3],))  # wrong width: forward raises
    assert "error" in json.loads(extra[EXTRA_FILE_NAME])
    archive = str(tmp_path / "broken.pt2")
    save_archive(model, args, archive, extra)
    proc = run_worker(inspect_worker, archive, str(tmp_path / "index.json"))
    assert proc.returncode == 1
    # The reason names the op that raised (e.g. "op linear in fc failed: RuntimeError: ...").
    assert "eager mode is unavailable: running the model at export failed (" in proc.stderr
    assert "failed: RuntimeError: mat1 and mat2 shapes cannot be multiplied" in proc.stderr
