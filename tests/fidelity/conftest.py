"""Shared pytest fixtures for fidelity tests (graph here; eager tests reuse them).

- `fixture_archive(name)`: that registry model exported ONCE per session through the export
  helper; returns the archive path.
- `opscope_index(name, mode)`: runs the `opscope-inspect` worker ($OPSCOPE_INSPECT) on that
  archive, returns the parsed index (cached).
- `oracle(name, mode, compressors)`: coreai-opt ModelInspector canonical forms for the same
  factory, seed and example inputs (cached).
coreai-opt missing is a failure, never a skip: fidelity without the oracle means nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYTHON_DIR = os.path.join(REPO, "python")
if PYTHON_DIR not in sys.path:
    sys.path.insert(0, PYTHON_DIR)

from fixtures.registry import FIXTURES, GRAPH_ONLY_FIXTURES, get as get_fixture  # noqa: E402
from oracle import canonical  # noqa: E402

FIXTURE_NAMES = [f.name for f in FIXTURES]  # graph and eager mode
GRAPH_FIXTURE_NAMES = FIXTURE_NAMES + [f.name for f in GRAPH_ONLY_FIXTURES]


def helper_command(*args: str, as_folder: bool = False) -> list[str]:
    """`python -m opscope_export ARGS`, or with as_folder `python .../opscope_export ARGS`
    (how the `opscope export` front end runs it)."""
    if as_folder:
        return [sys.executable, os.path.join(PYTHON_DIR, "opscope_export"), *args]
    return [sys.executable, "-m", "opscope_export", *args]


def helper_env(**extra) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [PYTHON_DIR, env.get("PYTHONPATH")]))
    env.pop("OPSCOPE_DEBUG", None)
    env.update(extra)
    return env


@pytest.fixture(scope="session")
def coreai_opt():
    try:
        import coreai_opt.inspection  # noqa: F401
    except Exception as exc:  # any import failure: the oracle is unusable
        pytest.fail(f"coreai-opt cannot be imported by {sys.executable} ({exc!r}); the fidelity "
                    "tests need it: pip install -c scripts/deps/constraints.txt coreai-opt",
                    pytrace=False)
    return sys.modules["coreai_opt"]


@pytest.fixture(scope="session")
def fixture_archive(tmp_path_factory):
    """fixture_archive(name) -> path of that fixture's .pt2, exported once per session
    through the export helper's command line (in this process: torch is imported once)."""
    from fixtures.build_fixtures import export_fixture_in_process

    outdir = str(tmp_path_factory.mktemp("archives"))
    cache: dict[str, str] = {}

    def get(name: str) -> str:
        if name not in cache:
            _, archive, _, error = export_fixture_in_process(get_fixture(name), outdir)
            if error:
                pytest.fail(f"exporting fixture {name} failed:\n{error}", pytrace=False)
            cache[name] = archive
        return cache[name]

    return get


@pytest.fixture(scope="session")
def inspect_worker() -> str:
    path = os.environ.get("OPSCOPE_INSPECT", "")
    if not path or not os.access(path, os.X_OK):
        pytest.fail(f"OPSCOPE_INSPECT={path!r} is not an executable opscope-inspect; run via "
                    "ctest or set it to build/opscope-inspect", pytrace=False)
    return path


@pytest.fixture(scope="session")
def opscope_bin() -> str:
    path = os.environ.get("OPSCOPE_BIN", "")
    if not path or not os.access(path, os.X_OK):
        pytest.fail(f"OPSCOPE_BIN={path!r} is not the opscope binary; run via ctest",
                    pytrace=False)
    return path


@pytest.fixture(scope="session")
def opscope_index(fixture_archive, inspect_worker, tmp_path_factory):
    cache: dict = {}
    outdir = tmp_path_factory.mktemp("indexes")

    def run(name: str, mode: str = "graph") -> dict:
        if (name, mode) not in cache:
            archive = fixture_archive(name)
            index_path = os.path.join(outdir, f"{name}.{mode}.json")
            proc = subprocess.run(
                [inspect_worker, archive, "--mode", mode, "-o", index_path],
                capture_output=True, text=True, timeout=300,
            )
            if proc.returncode != 0:
                pytest.fail(f"opscope-inspect {archive} --mode {mode} exited {proc.returncode}:\n"
                            f"{proc.stderr.strip()}", pytrace=False)
            with open(index_path, encoding="utf-8") as f:
                cache[(name, mode)] = json.load(f)
        return cache[(name, mode)]

    return run


def build_fixture_model(name: str):
    """(model, example args) for a registry fixture, as the export helper builds them."""
    from oracle.inspector import build_target

    fixture = get_fixture(name)
    return build_target(fixture.target, fixture.inputs, fixture.seed)


@pytest.fixture(scope="session")
def oracle(coreai_opt):
    from oracle.inspector import oracle_canonicals

    cache: dict = {}

    def run(name: str, mode: str = "graph", compressors=(None, "quantizer")) -> dict:
        key = (name, mode, tuple(compressors))
        if key not in cache:
            model, args = build_fixture_model(name)
            cache[key] = oracle_canonicals(model, args, mode, compressors)
        return cache[key]

    return run


def assert_same(expected: dict, actual: dict, what: str) -> None:
    """Fail with a readable diff when the canonical forms differ."""
    lines = canonical.diff(expected, actual)
    if lines:
        pytest.fail(f"{what}: opscope differs from coreai-opt\n" + "\n".join(lines),
                    pytrace=False)
