"""Eager mode fidelity: for every fixture, opscope's eager index equals coreai-opt's eager
ModelInspector with no compressor, Quantizer and KMeansPalettizer (op names, types, module
stacks, edges, boundaries, source frames).

Each fixture is exported by the export helper exactly as `opscope export` runs it (it stores
the eager record, python/opscope_export/eager_trace.py), then indexed by the real worker:
`opscope-inspect ARCHIVE --mode eager -o INDEX` ($OPSCOPE_INSPECT), see conftest.py. The
oracle runs on a fresh model built from the same factory and seed. Missing coreai-opt, worker
or fixture packages are failures, never skips.
"""

from __future__ import annotations

import os
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


@pytest.fixture(scope="module")
def eager_indexes(opscope_index):
    """{fixture: eager index}: conftest exports each fixture through the real helper
    (`python -m opscope_export`) and runs `opscope-inspect --mode eager` on it."""

    def get(fixture):
        index = opscope_index(fixture.name, "eager")
        assert index["mode"] == "eager"
        return index

    return get


def oracle_form(fixture, compressor: str) -> dict:
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
    expected = oracle_form(fixture, compressor)
    actual = eager_canonical.from_index(eager_indexes(fixture), compressor)
    assert actual == expected, eager_canonical.first_difference(expected, actual)
