"""Where the pieces under test are: the opscope binaries in a build tree, the project's
Python, the yaml-language-server install. A piece that is missing is None, and every
metric that needs it reports "n/a (not built)" instead of failing."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
NOT_BUILT = "n/a (not built)"

# Where CMake puts the executables (top-level output dir, or the layer's own build dir).
_CANDIDATES = {
    "opscope": ("opscope", "bin/opscope", "server/opscope"),
    "opscope-inspect": ("opscope-inspect", "bin/opscope-inspect"),
}


def _find_executable(build_dir: Path, name: str) -> Path | None:
    for relative in _CANDIDATES[name]:
        path = build_dir / relative
        if path.is_file() and os.access(path, os.X_OK):
            return path
    return None


@dataclass
class Tools:
    build_dir: Path
    python: Path
    opscope: Path | None
    inspect: Path | None
    node: Path | None
    yaml_ls: Path | None  # the server's JS entry point

    @classmethod
    def locate(cls, build_dir: Path, python: Path) -> "Tools":
        yaml_ls = build_dir / "bench/yls/node_modules/yaml-language-server/bin/yaml-language-server"
        node = shutil.which("node")
        return cls(
            build_dir=build_dir,
            python=python,
            opscope=_find_executable(build_dir, "opscope"),
            inspect=_find_executable(build_dir, "opscope-inspect"),
            node=Path(node) if node else None,
            yaml_ls=yaml_ls if yaml_ls.is_file() else None,
        )

    def describe(self) -> dict:
        return {k: str(v) if v else None for k, v in self.__dict__.items()}
