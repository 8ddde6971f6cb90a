"""The wheel as a user gets it: installed with pip into a fresh venv (no system site
packages, nothing from this checkout on any path, an empty LD_LIBRARY_PATH), the `opscope`
command and `python -m opscope` work; every library the binaries need is found (ldd); a
check and a summary of committed files need no torch; `summary examples/resnet/model.py:build`
exports with the venv's own torch.

Run by scripts/test_wheel.sh (which builds the wheel and the venv and times them), with
OPSCOPE_WHEEL_VENV set to that venv."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

SOURCE_DIR = Path(__file__).resolve().parents[2]
VENV = Path(os.environ.get("OPSCOPE_WHEEL_VENV", ""))
ARCHIVE = SOURCE_DIR / "tests" / "fuzz" / "corpus" / "archive" / "mymodel.pt2"
INDEX = SOURCE_DIR / "tests" / "fuzz" / "corpus" / "index_reader" / "mymodel_graph.json"
VERSION = json.loads((SOURCE_DIR / "editors" / "vscode" / "package.json").read_text())["version"]

pytestmark = pytest.mark.skipif(not os.environ.get("OPSCOPE_WHEEL_VENV"),
                                reason="scripts/test_wheel.sh runs this with a venv")


def clean_env(tmp: Path) -> dict:
    """A shell as a user has it: the venv not activated, no variable of this project's."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("OPSCOPE") and k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env["LD_LIBRARY_PATH"] = ""
    env["PATH"] = "/usr/bin:/bin"
    env["XDG_CACHE_HOME"] = str(tmp / "cache")
    env["XDG_CONFIG_HOME"] = str(tmp / "config")
    return env


def run(args, tmp, cwd=None, timeout=300):
    return subprocess.run([str(a) for a in args], capture_output=True, text=True,
                          env=clean_env(tmp), cwd=cwd or tmp, timeout=timeout)


def package_dir() -> Path:
    found = list((VENV / "lib").glob("python3*/site-packages/opscope"))
    assert len(found) == 1, found
    return found[0]


def system_libraries() -> set:
    """The libraries the installed wheel's manylinux tag allows from the system (auditwheel's
    policy table)."""
    import auditwheel

    wheel = next(package_dir().parent.glob("opscope-*.dist-info")) / "WHEEL"
    tags = [line.split(": ", 1)[1] for line in wheel.read_text().splitlines()
            if line.startswith("Tag: ")]
    policy_name = re.search(r"manylinux_\d+_\d+", tags[0]).group(0)  # manylinux_2_35
    policies = json.loads((Path(auditwheel.__file__).parent / "policy" /
                           "manylinux-policy.json").read_text())
    policy = next(p for p in policies if p["name"] == policy_name)
    return set(policy["lib_whitelist"])


def test_the_venv_is_isolated():
    config = (VENV / "pyvenv.cfg").read_text()
    assert "include-system-site-packages = false" in config


def test_binaries_find_every_library(tmp_path):
    binaries = [package_dir() / "bin" / "opscope", package_dir() / "bin" / "opscope-inspect"]
    seen = ""
    for binary in binaries:
        ldd = run(["ldd", binary], tmp_path)
        assert ldd.returncode == 0, ldd.stderr
        assert "not found" not in ldd.stdout, ldd.stdout
        seen += ldd.stdout
        # The repaired libraries come from the wheel, not from the build machine's -dev packages.
        for lib in ("libzip", "libre2", "libsimdjson"):
            lines = [line for line in ldd.stdout.splitlines() if lib in line]
            assert all(str(VENV) in line for line in lines), ldd.stdout
        # Everything else is on the list of the wheel's manylinux policy (glibc, the C++
        # runtime, libz): what every such system has.
        for line in ldd.stdout.splitlines():
            if "=>" in line and str(VENV) not in line:
                assert line.split("=>")[0].strip() in system_libraries(), line
    for lib in ("libzip", "libre2", "libsimdjson"):  # the worker reads archives with libzip
        assert lib in seen, seen


def test_version_from_the_command_and_python_m(tmp_path):
    for command in ([VENV / "bin" / "opscope", "--version"],
                    [VENV / "bin" / "python", "-m", "opscope", "--version"]):
        result = run(command, tmp_path)
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == f"opscope {VERSION}"


def test_check_and_summary_of_committed_files_need_no_torch(tmp_path):
    probe = run([VENV / "bin" / "python", "-c", "import torch"], tmp_path)
    has_torch = probe.returncode == 0
    config = tmp_path / "q.yaml"
    config.write_text("quantization_config:\n  module_name_configs:\n    linear9: null\n")
    check = run([VENV / "bin" / "opscope", "check", config.name, "--model", INDEX,
                 "--format", "github"], tmp_path)
    assert check.returncode == 0, check.stderr
    assert check.stdout.startswith("::warning file=q.yaml,line=3,col=5,"), check.stdout
    summary = run([VENV / "bin" / "opscope", "summary", ARCHIVE, "--no-color"], tmp_path)
    assert summary.returncode == 0, summary.stderr
    assert "linear1 (torch.nn.modules.linear.Linear)" in summary.stdout, summary.stdout
    assert has_torch or "torch" not in summary.stderr


def test_summary_of_the_python_example_exports_with_the_venvs_torch(tmp_path):
    if run([VENV / "bin" / "python", "-c", "import torch"], tmp_path).returncode != 0:
        pytest.skip("no torch in the wheel's venv (scripts/test_wheel.sh installs it)")
    result = run([VENV / "bin" / "opscope", "summary", "examples/resnet/model.py:build",
                  "--input", "1x3x64x64", "--no-color"], tmp_path, cwd=SOURCE_DIR, timeout=600)
    assert result.returncode == 0, result.stderr
    assert "├── ■ conv1 (torch.nn.modules.conv.Conv2d)" in result.stdout, result.stdout
    # Exported by the venv's interpreter (not python3 on PATH, which has no torch here).
    assert f"with {VENV}/bin/python" in result.stderr, result.stderr


def test_language_server_starts_from_the_console_script(tmp_path):
    import sys
    sys.path.insert(0, str(SOURCE_DIR / "tests" / "lsp"))
    from lsp_client import LspClient

    client = LspClient(VENV / "bin" / "opscope", env=clean_env(tmp_path), cwd=tmp_path)
    try:
        result = client.initialize(root=tmp_path)
        assert result["serverInfo"] == {"name": "opscope", "version": VERSION}
    finally:
        client.proc.kill()
        client.proc.wait()
