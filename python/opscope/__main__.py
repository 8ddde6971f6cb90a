"""`opscope` / `python -m opscope`: replaces this process with the bundled binary, so
stdin/stdout (the language server's channel), signals and the exit code are the binary's."""

import os
import sys

from opscope import binary_path


def main() -> None:
    binary = binary_path()
    if not os.access(binary, os.X_OK):
        sys.exit(f"opscope: {binary} is missing or not executable; reinstall with "
                 "`pip install --force-reinstall opscope`")
    # The export helper runs `$VIRTUAL_ENV/bin/python` (else python3): when opscope is run
    # from a venv without activating it, that is still this venv, with its own torch.
    if not os.environ.get("VIRTUAL_ENV") and sys.prefix != sys.base_prefix:
        os.environ["VIRTUAL_ENV"] = sys.prefix
    os.execv(binary, [binary, *sys.argv[1:]])


if __name__ == "__main__":
    main()
