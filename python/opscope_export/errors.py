"""The one error type the helper reports to the user (one message on stderr, exit 1)."""

from __future__ import annotations

import errno
import os


class ExportError(Exception):
    """A problem the user can fix; the message says what is wrong and what to do."""


def shorten(text: str, max_lines: int = 3, max_chars: int = 400) -> str:
    """First lines of a (possibly huge) exception message, joined into one line: the
    helper's error is always the single last line of stderr (the CLI shows that line)."""
    lines = [line.strip() for line in str(text).strip().splitlines() if line.strip()]
    out = " ".join(lines[:max_lines])
    if len(out) > max_chars:
        out = out[:max_chars].rstrip() + " ..."
    elif len(lines) > max_lines:
        out += " ..."
    return out


def one_line(text: str) -> str:
    return " ".join(line.strip() for line in str(text).splitlines() if line.strip())


def describe(exc: BaseException) -> str:
    """`TypeName: first lines of the message`."""
    message = shorten(str(exc))
    name = type(exc).__name__
    return f"{name}: {message}" if message else name


# OS errors a user can act on, named as what they are (not "crashed", not a traceback).
_OS_ERRORS = {
    errno.ENOSPC: "disk full (ENOSPC): no space left on the device",
    errno.EDQUOT: "disk quota exceeded (EDQUOT)",
    errno.EROFS: "read-only file system (EROFS)",
    errno.EACCES: "permission denied (EACCES)",
    errno.EPERM: "permission denied (EPERM)",
}


def describe_os_error(exc: BaseException, directory: str) -> str | None:
    """`disk full (ENOSPC): no space left on the device writing in DIR`, or None when `exc`
    (or an exception it wraps: torch raises RuntimeError from a failed write) is not one of
    those errors and the folder's file system still has room."""
    seen: BaseException | None = exc
    for _ in range(5):
        if isinstance(seen, OSError) and seen.errno in _OS_ERRORS:
            return f"{_OS_ERRORS[seen.errno]} writing in {seen.filename or directory}"
        if seen is None:
            break
        seen = seen.__cause__ or seen.__context__
    try:
        free = os.statvfs(directory)
        if free.f_bavail * free.f_frsize < (1 << 20):
            return f"{_OS_ERRORS[errno.ENOSPC]} writing in {directory}"
    except OSError:
        pass
    return None
