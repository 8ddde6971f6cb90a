"""The progress line of `opscope export` and a first `opscope index`: on a terminal, one line
with the phase and its elapsed time, redrawn in place and erased at the end; plain lines when
stderr is not a terminal; nothing in CI's terminal-less logs' way ($CI) and nothing with -q."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

OPSCOPE = os.environ.get("OPSCOPE_BIN", "")
SOURCE_DIR = Path(os.environ.get("OPSCOPE_SOURCE_DIR", Path(__file__).resolve().parents[3]))
ARCHIVE = SOURCE_DIR / "tests" / "fuzz" / "corpus" / "archive" / "mymodel.pt2"
ERASE = "\r\x1b[K"

pytestmark = pytest.mark.skipif(not OPSCOPE, reason="OPSCOPE_BIN is not set")


def environment(tmp_path: Path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "TERM")}
    env.update(XDG_CACHE_HOME=str(tmp_path / "cache"), TERM="xterm", **extra)
    if os.environ.get("OPSCOPE_INSPECT_BIN"):
        env["OPSCOPE_INSPECT"] = os.environ["OPSCOPE_INSPECT_BIN"]
    return env


def run_with_terminal_stderr(args, env, cwd) -> tuple[int, str]:
    """stderr on a pseudo-terminal (as in an interactive shell); returns (exit, stderr)."""
    master, slave = pty.openpty()
    # Wide enough that no phase is shortened to fit.
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 400, 0, 0))
    proc = subprocess.Popen([OPSCOPE, *args], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=slave, env=env, cwd=cwd)
    os.close(slave)
    data = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        data += chunk
    os.close(master)
    return proc.wait(timeout=300), data.decode("utf-8", "replace").replace("\r\n", "\n")


def test_first_index_draws_the_phase_and_elapsed_time_then_erases_it(tmp_path):
    code, err = run_with_terminal_stderr(["index", str(ARCHIVE), "-o", str(tmp_path / "i.json")],
                                         environment(tmp_path), tmp_path)
    assert code == 0, err
    frames = re.findall(r"\r\x1b\[Kopscope: inspecting \S*mymodel\.pt2 \(graph mode\) \.\.\. "
                        r"(\d+\.\d)s", err)
    assert frames, repr(err)
    assert err.rstrip("\n").endswith("opscope: wrote " + str(tmp_path / "i.json") + " (graph mode)")
    # Erased before the last message: no half line is left on the terminal.
    assert ERASE + "opscope: wrote" in err, repr(err)
    assert "opscope: inspecting" not in err.split(ERASE)[-1]


def test_a_log_gets_plain_lines_and_ci_or_quiet_no_progress_line(tmp_path):
    args = ["index", str(ARCHIVE), "--no-cache", "-o", str(tmp_path / "i.json")]
    piped = subprocess.run([OPSCOPE, *args], env=environment(tmp_path), capture_output=True,
                           text=True, timeout=300)
    assert piped.returncode == 0, piped.stderr
    assert "\r" not in piped.stderr and "\x1b" not in piped.stderr
    assert re.search(r"^opscope: inspecting \S*mymodel\.pt2 \(graph mode\) \.\.\.$",
                     piped.stderr, re.M), piped.stderr

    code, err = run_with_terminal_stderr(args, environment(tmp_path, CI="true"), tmp_path)
    assert code == 0 and "\r" not in err and "\x1b" not in err, repr(err)
    assert "opscope: inspecting" in err  # the plain line, as in any log

    code, err = run_with_terminal_stderr([*args, "-q"], environment(tmp_path), tmp_path)
    assert code == 0 and err == "", repr(err)


def test_export_draws_its_phase_on_a_terminal(tmp_path):
    (tmp_path / "tiny.py").write_text(
        "import torch\n\ndef build():\n    return torch.nn.Linear(4, 2)\n")
    code, err = run_with_terminal_stderr(
        ["export", "tiny.py:build", "--input", "1x4", "--python", sys.executable,
         "-o", str(tmp_path / "tiny.pt2")], environment(tmp_path), tmp_path)
    assert code == 0, err
    assert re.search(r"\r\x1b\[Kopscope: exporting tiny\.py:build with \S+ \.\.\. \d+\.\ds", err), \
        repr(err)
    assert err.rstrip("\n").endswith(ERASE + "opscope: wrote " + str(tmp_path / "tiny.pt2"))
