"""Timing and memory primitives shared by every benchmark: child processes with their
wall time and peak resident memory, and order statistics. Pure Python, no torch."""

from __future__ import annotations

import json
import os
import statistics
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field


class BenchError(Exception):
    """A run failed: the row reads `error` and says why."""


@dataclass
class ProcessRun:
    wall_s: float
    peak_rss_kb: int  # ru_maxrss of the child and the descendants it waited for
    returncode: int
    stdout: str
    stderr: str
    data: dict | None = None  # a Python peer's own JSON report
    cpu_s: float = 0.0  # user + system time; a steadier figure than wall on a loaded machine

    def json(self) -> dict:
        """The last stdout line, parsed: the Python peers report their own timings there."""
        lines = [line for line in self.stdout.splitlines() if line.startswith("{")]
        if not lines:
            raise BenchError(f"no JSON result on stdout; stderr: {tail(self.stderr)}")
        return json.loads(lines[-1])


def tail(text: str, lines: int = 6) -> str:
    return " | ".join(text.strip().splitlines()[-lines:])


TRAMPOLINE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "peak_rss.py")


def run_measured(cmd: list[str], *, env: dict | None = None, cwd: str | None = None,
                 timeout: float = 900, check: bool = True) -> ProcessRun:
    """Runs one command to completion through peak_rss.py, which times it and reads its own
    peak RSS with wait4 (see there why not from here). Output goes to temporary files, not
    pipes, so a chatty child never blocks."""
    with tempfile.TemporaryDirectory(prefix="run-") as scratch:
        result_path = os.path.join(scratch, "result.json")
        out_path, err_path = os.path.join(scratch, "out"), os.path.join(scratch, "err")
        with open(out_path, "w") as out, open(err_path, "w") as err:
            proc = subprocess.Popen([sys.executable, "-S", "-E", TRAMPOLINE, result_path, *cmd],
                                    stdout=out, stderr=err, env=env, cwd=cwd,
                                    start_new_session=True)
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)  # the trampoline and the command
                proc.wait()
                raise BenchError(f"timed out after {timeout:.0f} s: {' '.join(cmd[:4])}")
        with open(out_path) as out, open(err_path) as err:
            stdout, stderr = out.read(), err.read()
        try:
            with open(result_path) as result:
                measured = json.load(result)
        except (OSError, ValueError):
            raise BenchError(f"cannot run {cmd[0]}: {tail(stderr)}") from None
    run = ProcessRun(measured["wall_s"], measured["peak_rss_kb"], measured["returncode"],
                     stdout, stderr, cpu_s=measured["cpu_s"])
    if check and run.returncode != 0:
        raise BenchError(f"exit {run.returncode}: {' '.join(cmd[:4])}...: {tail(run.stderr)}")
    return run


@dataclass
class Sample:
    """Repeated measurements of one quantity (seconds, or kB for memory)."""

    values: list[float] = field(default_factory=list)

    def add(self, value: float) -> None:
        self.values.append(value)

    @property
    def min(self) -> float:
        return min(self.values)

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    def percentile(self, p: float) -> float:
        return percentile(self.values, p)


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100): p99 of 200 samples is the 198th smallest."""
    if not values:
        raise ValueError("no samples")
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * p // 100))  # ceil without floats drifting
    return ordered[int(rank) - 1]


def proc_status_kb(pid: int) -> dict[str, int]:
    """VmRSS / VmHWM / VmPeak of a live process, in kB, from /proc/PID/status."""
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM", "VmPeak"):
                fields[key] = int(rest.split()[0])
    return fields
