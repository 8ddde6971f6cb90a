"""Entry point: `python -m opscope_export ...` (with this folder's parent on PYTHONPATH) or
`python path/to/opscope_export ...` (running the folder as a script)."""

import os
import sys

if not __package__:
    # Run as a folder/script: sys.path[0] is this folder. Import ourselves as a package
    # instead, and search the user's current directory first, as `python -m` would.
    _here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or ".") == _here:
        sys.path[0] = os.getcwd()
    sys.path.insert(1, os.path.dirname(_here))

from opscope_export.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
