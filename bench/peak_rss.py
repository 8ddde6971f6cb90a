"""Runs one command and writes its wall time, CPU time (user + system, its waited-for
children included) and peak resident memory to a JSON file:
  python -S -E peak_rss.py RESULT.json CMD [ARG]...
Exits with the command's exit code; the command inherits stdin/stdout/stderr.

Why a trampoline: Linux folds the memory high-water mark of the process that forks into
the child's ru_maxrss when the child execs, so a child forked straight from the benchmark
harness would report at least the harness's own size. Started with -S, this trampoline
is a few MB; the command's figure is its own peak unless that is smaller than that."""

import json
import os
import sys
import time


def main() -> int:
    result_path, cmd = sys.argv[1], sys.argv[2:]
    start = time.perf_counter()
    pid = os.posix_spawnp(cmd[0], cmd, os.environ)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    with open(result_path, "w") as out:
        json.dump({"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime,
                   "peak_rss_kb": usage.ru_maxrss, "returncode": code}, out)
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main())
