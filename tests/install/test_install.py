"""`cmake --install` gives a tree that works wherever it is moved: no source or build path is
compiled into the binaries, which find their worker and the export helper relative to
themselves; and the version is the one project() sets, everywhere it is shown."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SOURCE_DIR = Path(os.environ["OPSCOPE_SOURCE_DIR"])
BUILD_DIR = Path(os.environ["OPSCOPE_BUILD_DIR"])
VERSION = os.environ["OPSCOPE_VERSION"]
PYTHON = os.environ["OPSCOPE_PYTHON"]
CMAKE = os.environ.get("CMAKE_COMMAND", "cmake")
ARCHIVE = SOURCE_DIR / "tests" / "fuzz" / "corpus" / "archive" / "mymodel.pt2"
INDEX = SOURCE_DIR / "tests" / "fuzz" / "corpus" / "index_reader" / "mymodel_graph.json"

sys.path.insert(0, str(SOURCE_DIR / "tests" / "lsp"))
from lsp_client import LspClient  # noqa: E402


def clean_env(tmp: Path) -> dict:
    """No variable that points at the build or source tree; a private cache."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPSCOPE_INSPECT", "OPSCOPE_PYTHON_HELPERS", "OPSCOPE_BIN",
                        "VIRTUAL_ENV", "PYTHONPATH")}
    env["XDG_CACHE_HOME"] = str(tmp / "cache")
    env["XDG_CONFIG_HOME"] = str(tmp / "config")
    return env


@pytest.fixture(scope="module")
def moved(tmp_path_factory) -> Path:
    """The installed tree, moved after installing."""
    root = tmp_path_factory.mktemp("install")
    run = subprocess.run([CMAKE, "--install", str(BUILD_DIR), "--prefix", str(root / "first")],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    moved_to = root / "elsewhere" / "opscope"
    moved_to.parent.mkdir()
    shutil.move(str(root / "first"), moved_to)
    return moved_to


def opscope(tree: Path, *args, tmp: Path, cwd=None, timeout=600):
    return subprocess.run([str(tree / "bin" / "opscope"), *args], capture_output=True,
                          text=True, env=clean_env(tmp), cwd=cwd, timeout=timeout)


def test_the_tree_holds_the_binaries_and_the_export_helper(moved):
    assert os.access(moved / "bin" / "opscope", os.X_OK)
    assert os.access(moved / "bin" / "opscope-inspect", os.X_OK)
    assert (moved / "share" / "opscope" / "python" / "opscope_export" / "__main__.py").is_file()


def test_version_is_the_projects(moved, tmp_path):
    run = opscope(moved, "--version", tmp=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == f"opscope {VERSION}"


def test_the_language_server_reports_the_same_version(moved, tmp_path):
    client = LspClient(moved / "bin" / "opscope", env=clean_env(tmp_path), cwd=tmp_path)
    try:
        result = client.initialize(root=tmp_path)
        assert result["serverInfo"] == {"name": "opscope", "version": VERSION}
    finally:
        client.proc.kill()
        client.proc.wait()


def test_the_vscode_extension_has_the_same_version():
    package = json.loads((SOURCE_DIR / "editors" / "vscode" / "package.json").read_text())
    assert package["version"] == VERSION, (
        "editors/vscode/package.json's version differs from project(VERSION) in CMakeLists.txt")


def test_summary_of_an_index_reads_as_from_the_build_tree(moved, tmp_path):
    run = opscope(moved, "summary", str(INDEX), tmp=tmp_path)
    assert run.returncode == 0, run.stderr
    built = subprocess.run([str(BUILD_DIR / "opscope"), "summary", str(INDEX)],
                           capture_output=True, text=True, env=clean_env(tmp_path / "b"))
    assert run.stdout == built.stdout
    assert "linear1 (torch.nn.modules.linear.Linear)" in run.stdout


def test_summary_of_an_archive_runs_the_moved_worker(moved, tmp_path):
    run = opscope(moved, "summary", str(ARCHIVE), tmp=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "linear1 (torch.nn.modules.linear.Linear)" in run.stdout


def test_without_its_worker_the_tree_says_so_instead_of_using_the_build_trees(moved, tmp_path):
    partial = tmp_path / "partial"
    shutil.copytree(moved, partial, symlinks=True)
    (partial / "bin" / "opscope-inspect").unlink()
    run = opscope(partial, "summary", str(ARCHIVE), tmp=tmp_path)
    assert run.returncode != 0
    assert f"not found next to {partial / 'bin'}" in run.stderr


def test_export_of_the_example_runs_the_moved_helper(moved, tmp_path):
    project = tmp_path / "resnet"
    shutil.copytree(SOURCE_DIR / "examples" / "resnet", project)
    run = opscope(moved, "export", "model.py:build", "--input", "1x3x64x64", "-o", "model.pt2",
                  "--python", PYTHON, tmp=tmp_path, cwd=project)
    assert run.returncode == 0, run.stderr
    summary = opscope(moved, "summary", "model.pt2", tmp=tmp_path, cwd=project)
    assert summary.returncode == 0, summary.stderr
    assert "conv2d" in summary.stdout


def test_without_its_helper_the_tree_names_its_own_folder(moved, tmp_path):
    partial = tmp_path / "partial"
    shutil.copytree(moved, partial, symlinks=True)
    shutil.rmtree(partial / "share")
    project = tmp_path / "resnet"
    shutil.copytree(SOURCE_DIR / "examples" / "resnet", project)
    run = opscope(partial, "export", "model.py:build", "--input", "1x3x64x64", "-o", "model.pt2",
                  "--python", PYTHON, tmp=tmp_path, cwd=project)
    assert run.returncode != 0
    assert str(partial / "bin" / ".." / "share" / "opscope" / "python" / "opscope_export") in run.stderr
