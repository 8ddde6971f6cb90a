"""opscope as a Python package: the `opscope` binary, its worker (opscope-inspect) and the
export helper, installed by `pip install opscope`. The command is `opscope` (or
`python -m opscope`); nothing here is a Python API."""

import os

__all__ = ["binary_path"]


def binary_path() -> str:
    """The bundled `opscope` executable."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "opscope")
