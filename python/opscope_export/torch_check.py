"""Is there a usable torch in this interpreter? (`--probe` and the start of every export)."""

from __future__ import annotations

import platform
import re
import sys

from opscope_export import MIN_TORCH
from opscope_export.errors import ExportError, describe

MIN_TORCH_TEXT = ".".join(str(part) for part in MIN_TORCH)


def parse_version(text: str) -> tuple[int, int]:
    match = re.match(r"(\d+)\.(\d+)", text)
    return (int(match.group(1)), int(match.group(2))) if match else (0, 0)


def probe() -> dict:
    """What the CLI needs to know about this interpreter, as JSON-able data."""
    info = {
        "python": platform.python_version(),
        "executable": sys.executable,
        "torch": None,
        "min_torch": MIN_TORCH_TEXT,
        "ok": False,
        "error": None,
    }
    try:
        info["torch"] = require_torch()
        info["ok"] = True
    except ExportError as exc:
        info["error"] = str(exc)
    return info


def require_torch() -> str:
    """The torch version, or an ExportError saying what to install where."""
    try:
        import torch
    except ImportError as exc:
        raise ExportError(
            f"torch is not installed for {sys.executable} (Python {platform.python_version()}): "
            f"{describe(exc)}; install PyTorch >= {MIN_TORCH_TEXT} there, or point opscope at "
            "your project's interpreter (`python:` in opscope.yaml, the opscope.python setting, "
            "or --python PATH on the command line)"
        ) from exc
    version = str(torch.__version__)
    if parse_version(version) < MIN_TORCH:
        raise ExportError(
            f"torch {version} in {sys.executable} is too old: opscope needs torch >= "
            f"{MIN_TORCH_TEXT} (torch.export archives); upgrade PyTorch there"
        )
    return version
