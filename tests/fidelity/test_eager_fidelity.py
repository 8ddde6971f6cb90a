"""Eager mode fidelity: for every fixture, opscope's eager index equals coreai-opt's eager
ModelInspector with no compressor, Quantizer and KMeansPalettizer (op names, types, module
stacks, edges, boundaries, source frames).

Each fixture is exported the way `opscope export` does (torch.export under no_grad) with the
eager record the helper stores (python/opscope_export/eager_trace.py), then indexed by the
real worker: `opscope-inspect ARCHIVE --mode eager -o INDEX` ($OPSCOPE_INSPECT). The oracle
runs on a fresh model built from the same factory and seed. Missing coreai-opt, worker or
fixture packages are failures, never skips.
"""

from __future__ import annotations

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
from fixtures.registry import FIXTURES  # noqa: E402


def build(fixture):
    """(model, args, kwargs) exactly as the export helper builds them."""
    from opscope_export.export import ExportRequest, build_model_and_inputs
    from opscope_export.specs import parse_input_spec

    request = ExportRequest(
        target=fixture.target,
        output="unused.pt2",
        inputs=[parse_input_spec(text) for text in fixture.inputs],
        seed=fixture.seed,
    )
    return build_model_and_inputs(request)


def export_with_eager_record(fixture, archive: str) -> None:
    import torch

    from opscope_export.eager_trace import eager_extra_files

    model, args, kwargs = build(fixture)
    with torch.no_grad():
        program = torch.export.export(model, args, kwargs=kwargs or None)
    torch.export.save(program, archive, extra_files=eager_extra_files(model, args, kwargs))


def inspect_eager(archive: str, index_path: str) -> dict:
    worker = os.environ.get("OPSCOPE_INSPECT")
    assert worker, "set OPSCOPE_INSPECT to the opscope-inspect binary (ctest does)"
    proc = subprocess.run(
        [worker, archive, "--mode", "eager", "-o", index_path], capture_output=True, text=True
    )
    assert proc.returncode == 0, f"opscope-inspect failed: {proc.stderr}"
    index = eager_canonical.load_index(index_path)
    assert index["mode"] == "eager"
    return index


@pytest.fixture(scope="module")
def eager_indexes(tmp_path_factory):
    cache: dict[str, dict] = {}

    def get(fixture):
        if fixture.name not in cache:
            directory = tmp_path_factory.mktemp(fixture.name)
            archive = str(directory / f"{fixture.name}.pt2")
            export_with_eager_record(fixture, archive)
            cache[fixture.name] = inspect_eager(archive, str(directory / "index.json"))
        return cache[fixture.name]

    return get


def oracle(fixture, compressor: str) -> dict:
    from coreai_opt.inspection import ModelInspector

    model, args, kwargs = build(fixture)
    assert not kwargs, "coreai-opt's eager inspector takes positional inputs only"
    inspector = ModelInspector(
        model,
        tuple(args),
        execution_mode="eager",
        compressor=eager_canonical.compressor_class(compressor),
    )
    return eager_canonical.from_oracle(inspector.summary)


@pytest.mark.parametrize("compressor", eager_canonical.COMPRESSORS)
@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda f: f.name)
def test_eager_index_matches_coreai_opt(fixture, compressor, eager_indexes):
    expected = oracle(fixture, compressor)
    actual = eager_canonical.from_index(eager_indexes(fixture), compressor)
    assert actual == expected, eager_canonical.first_difference(expected, actual)
