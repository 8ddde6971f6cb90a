"""Timing and memory primitives shared by every benchmark: child processes with their
wall time and peak resident memory, and order statistics. Pure Python, no torch."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field


class NotBuilt(Exception):
    """A piece of opscope this metric needs is not built (yet): the row reads n/a."""


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

    def json(self) -> dict:
        """The last stdout line, parsed: the Python peers report their own timings there."""
        lines = [line for line in self.stdout.splitlines() if line.startswith("{")]
        if not lines:
            raise BenchError(f"no JSON result on stdout; stderr: {tail(self.stderr)}")
        return json.loads(lines[-1])


def tail(text: str, lines: int = 6) -> str:
    return " | ".join(text.strip().splitlines()[-lines:])


def run_measured(cmd: list[str], *, env: dict | None = None, cwd: str | None = None,
                 timeout: float = 900, check: bool = True) -> ProcessRun:
    """Runs one command to completion; reaps it with wait4 to get its own peak RSS.

    Output goes to temporary files (not pipes) so the child never blocks on a full pipe
    while we sit in wait4."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, text=True, env=env, cwd=cwd)
        killer = threading.Timer(timeout, proc.kill)  # a hung child must not hang the bench
        killer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            killer.cancel()
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode == -9 and wall >= timeout:
            raise BenchError(f"timed out after {timeout:.0f} s: {' '.join(cmd[:4])}")
        out.seek(0)
        err.seek(0)
        run = ProcessRun(wall, usage.ru_maxrss, proc.returncode, out.read(), err.read())
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
