"""Entry point: `python -m opscope_export ...` (with this folder's parent on PYTHONPATH) or
`python path/to/opscope_export ...` (running the folder as a script)."""

import os
import sys

# Our own imports must not pick up the user's files (a `inspect.py` in their project would
# shadow the standard library): drop this folder and the current directory from sys.path
# now; loading TARGET puts the user's directory back first (target.py).
_here = os.path.dirname(os.path.abspath(__file__))
_cwd = os.getcwd()
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") not in (_here, _cwd)]
if not __package__:
    sys.path.insert(0, os.path.dirname(_here))

# OpenMP's idle workers sleep instead of spinning (read when torch loads its OpenMP runtime,
# so set before any import of torch; a user's own setting wins). A recording runs thousands
# of tiny kernels: spinning between them cost nine times the recording's CPU time on a busy
# 2-core machine (GPT-96: 5.5 s against 0.56 s), while large kernels keep every thread.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from opscope_export.cli import main  # noqa: E402

if __name__ == "__main__":
    code = main()
    # Everything is written and the archive renamed into place: skip tearing down the
    # interpreter, which for a large exported model spends seconds freeing objects.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
