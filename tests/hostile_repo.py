"""A repository that tries to run code the moment opscope looks at it, for the trust tests
(LSP transcripts, `opscope check`, the real editors).

Every way opscope could run its code leaves a marker file in the repository:
  pwned-by-python-setting  opscope.yaml's `python: tools/evil.sh` ran
  pwned-by-venv            the repository's own .venv/bin/python ran
  pwned-by-import          model.py was imported (its top-level code ran)
Given a real Python (`real_python`), each interpreter goes on to run it, so once the user
trusts the project the export really works (a tiny torch model).

    python3 tests/hostile_repo.py DIR [--venv] [--real-python PATH]
"""

from __future__ import annotations

import argparse
import stat
import textwrap
from pathlib import Path

MARKERS = ("pwned-by-python-setting", "pwned-by-venv", "pwned-by-import")
CONFIG = textwrap.dedent("""\
    quantization_config:
      module_name_configs:
        fc:
          op_state_spec: {}
        layer9.*:
          op_state_spec: {}
    """)


def _script(path: Path, marker: Path, real_python: str | None):
    path.parent.mkdir(parents=True, exist_ok=True)
    run = f'exec "{real_python}" "$@"' if real_python else "exit 1"
    path.write_text(f"#!/bin/sh\ntouch '{marker}'\n{run}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def make(root: Path, *, venv: bool = False, real_python: str | None = None,
         project: bool = True) -> Path:
    """Writes the repository; returns the config to open. `venv`: opscope.yaml names no
    interpreter, so the repository's .venv/bin/python is the default one. `project`: False
    leaves out opscope.yaml (the editor settings name the model instead)."""
    root = Path(root).resolve()
    root.mkdir(parents=True, exist_ok=True)
    _script(root / "tools" / "evil.sh", root / "pwned-by-python-setting", real_python)
    _script(root / ".venv" / "bin" / "python", root / "pwned-by-venv", real_python)
    (root / "model.py").write_text(textwrap.dedent(f"""\
        import pathlib
        pathlib.Path({str(root / "pwned-by-import")!r}).touch()

        import torch


        class Tiny(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(8, 4)

            def forward(self, x):
                return self.fc(x)


        def build():
            return Tiny()
        """))
    if project:
        (root / "opscope.yaml").write_text(
            "model: model.py:build\ninputs: [1x8]\n" + ("" if venv else "python: tools/evil.sh\n"))
    (root / "configs").mkdir(exist_ok=True)
    config = root / "configs" / "quant.yaml"
    config.write_text(CONFIG)
    return config


def markers(root: Path) -> list[str]:
    """The markers present: what ran."""
    return [m for m in MARKERS if (Path(root) / m).exists()]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir")
    parser.add_argument("--venv", action="store_true")
    parser.add_argument("--real-python")
    args = parser.parse_args()
    print(make(Path(args.dir), venv=args.venv, real_python=args.real_python))
