"""Fixtures for the LSP transcript tests: the real `opscope` binary, a
ResNet-18-shaped model exported at test time, and project folders around it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from lsp_client import LspClient  # noqa: E402

SOURCE_DIR = Path(os.environ.get("OPSCOPE_SOURCE_DIR", Path(__file__).resolve().parents[2]))
RESNET_SOURCE = SOURCE_DIR / "python" / "fixtures" / "resnet.py"
QUANT_CONFIG = """quantization_config:
  global_config:
    op_state_spec: {}
  module_name_configs:
    "layer1\\\\..*":
      op_state_spec: {}
    layer9.*:
      op_state_spec: {}
"""


@pytest.fixture(scope="session")
def opscope_bin() -> Path:
    path = os.environ.get("OPSCOPE_BIN")
    if not path or not Path(path).exists():
        pytest.skip("OPSCOPE_BIN does not name the built opscope binary")
    return Path(path)


@pytest.fixture(scope="session")
def python_exe() -> str:
    return os.environ.get("OPSCOPE_PYTHON", sys.executable)


@pytest.fixture(scope="session")
def has_worker(opscope_bin) -> bool:
    # The worker is built (and installed) next to the binary.
    return (opscope_bin.parent / "opscope-inspect").exists()


@pytest.fixture(scope="session")
def resnet_archive(tmp_path_factory, opscope_bin, python_exe, has_worker) -> Path:
    """model.pt2 exported from python/fixtures/resnet.py with the real `opscope export`."""
    if not has_worker:
        pytest.skip("opscope-inspect is not next to opscope")
    folder = tmp_path_factory.mktemp("resnet-archive")
    shutil.copy(RESNET_SOURCE, folder / "resnet_model.py")
    run = subprocess.run([str(opscope_bin), "export", "resnet_model.py:resnet18", "--input",
                          "1x3x64x64", "-o", "model.pt2", "--python", python_exe],
                         cwd=folder, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    return folder / "model.pt2"


def write_project(folder: Path, opscope_yaml: str, config: str = QUANT_CONFIG) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "opscope.yaml").write_text(opscope_yaml)
    (folder / "configs").mkdir(exist_ok=True)
    config_path = folder / "configs" / "quant.yaml"
    config_path.write_text(config)
    return config_path


@pytest.fixture
def make_client(opscope_bin, tmp_path):
    """Starts `opscope lsp` clients; each is killed at the end of the test if still running."""
    clients = []

    def start(args=("lsp",), env=None, **kwargs) -> LspClient:
        # Consent lives in the test's own config folder, never the user's (see trust_project).
        full_env = {"XDG_CACHE_HOME": str(tmp_path / "cache"),
                    "XDG_CONFIG_HOME": str(tmp_path / "config"), "OPSCOPE_LSP_POLL_MS": "200"}
        full_env.update(env or {})
        client = LspClient(opscope_bin, args=args, env=full_env, **kwargs)
        clients.append(client)
        return client

    yield start
    for client in clients:
        client.kill()


@pytest.fixture
def trust_project(opscope_bin, tmp_path):
    """Runs `opscope trust PROJECT_FILE` as the user would, into the config folder the
    make_client servers read."""

    def trust(project_file: Path) -> str:
        run = subprocess.run([str(opscope_bin), "trust", str(project_file)], capture_output=True,
                             text=True, timeout=60,
                             env=dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config")))
        assert run.returncode == 0, run.stderr
        return run.stdout

    return trust


def pos(line: int, character: int) -> dict:
    return {"line": line, "character": character}


def text_position(uri: str, line: int, character: int) -> dict:
    return {"textDocument": {"uri": uri}, "position": pos(line, character)}
