"""The repository's pre-commit hook (.pre-commit-hooks.yaml, `opscope-check`), run by the real
pre-commit as a user would try it: `pre-commit try-repo . opscope-check --files
examples/resnet/quant.yaml` reports the example's `layer9.*` warning and fails the commit.
The hook uses the opscope on PATH (here the build's); the example's Python model runs because
the test trusts its opscope.yaml first, as the README tells users to."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SOURCE_DIR = Path(os.environ["OPSCOPE_SOURCE_DIR"])
OPSCOPE = Path(os.environ["OPSCOPE_BIN"])
VENV_BIN = Path(sys.executable).parent


@pytest.fixture
def env(tmp_path):
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PRE_COMMIT")}
    environment.update(
        PATH=os.pathsep.join([str(OPSCOPE.parent), str(VENV_BIN), os.environ.get("PATH", "")]),
        VIRTUAL_ENV=str(VENV_BIN.parent),  # the export helper's torch
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        PRE_COMMIT_HOME=str(tmp_path / "pre-commit"),
    )
    return environment


def pre_commit(env, *args):
    exe = shutil.which("pre-commit", path=str(VENV_BIN)) or "pre-commit"
    return subprocess.run([exe, *args], cwd=SOURCE_DIR, env=env, capture_output=True, text=True,
                          timeout=300)


def test_try_repo_reports_the_example_warning_and_fails(env):
    trust = subprocess.run([str(OPSCOPE), "trust", "examples/resnet/opscope.yaml"],
                           cwd=SOURCE_DIR, env=env, capture_output=True, text=True, timeout=60)
    assert trust.returncode == 0, trust.stderr
    run = pre_commit(env, "try-repo", ".", "opscope-check", "--files", "examples/resnet/quant.yaml")
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert "opscope check" in out and "Failed" in out, out
    assert ("examples/resnet/quant.yaml:18:5: warning: `layer9.*` matches no module in the model;"
            in out), out


def test_untrusted_project_fails_with_what_to_do_and_other_files_are_skipped(env):
    # The hook sees every YAML/JSON file of a commit: the project file, the hooks file,
    # package.json are not compression configs and must not fail it; the example's config
    # fails, saying how to trust its project, and runs nothing.
    run = pre_commit(env, "try-repo", ".", "opscope-check", "--files",
                     "examples/resnet/quant.yaml", "examples/resnet/opscope.yaml",
                     ".pre-commit-hooks.yaml", "editors/vscode/package.json")
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert "examples/resnet/quant.yaml:8:1: error:" in out and "opscope trust" in out, out
    for skipped in ("examples/resnet/opscope.yaml:", ".pre-commit-hooks.yaml:", "package.json:"):
        assert skipped not in out, out
    assert "1 error, 0 warnings" in out, out
    assert "layer9" not in out  # nothing ran: the model was not exported
