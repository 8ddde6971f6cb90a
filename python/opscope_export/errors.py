"""The one error type the helper reports to the user (one message on stderr, exit 1)."""


class ExportError(Exception):
    """A problem the user can fix; the message says what is wrong and what to do."""


def shorten(text: str, max_lines: int = 6, max_chars: int = 600) -> str:
    """First lines of a (possibly huge) exception message, so errors stay readable."""
    lines = [line.rstrip() for line in str(text).strip().splitlines() if line.strip()]
    kept = lines[:max_lines]
    out = "\n".join(kept)
    if len(out) > max_chars:
        out = out[:max_chars].rstrip() + " ..."
    elif len(lines) > max_lines:
        out += "\n..."
    return out


def describe(exc: BaseException) -> str:
    """`TypeName: first lines of the message`."""
    message = shorten(str(exc))
    name = type(exc).__name__
    return f"{name}: {message}" if message else name
