"""The one error type the helper reports to the user (one message on stderr, exit 1)."""


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
