"""The JSON-RPC round-trip floor of the editor benchmarks: the time the bench client takes to
get an answer from `opscope lsp` for a request the server rejects at once (an unknown method),
through the same pipes and the same Python client as metric (d). Latencies near it are mostly
transport, not work:

  python bench/round_trip_floor.py --build-dir build [-n 500]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lsp_client import LspClient, LspError  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default="build")
    parser.add_argument("-n", type=int, default=500, help="requests")
    args = parser.parse_args()
    binary = Path(args.build_dir) / "opscope"
    if not binary.exists():
        print(f"{binary} does not exist: build opscope first (scripts/setup.sh)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as root, LspClient([str(binary), "lsp"]) as client:
        client.initialize(root)
        samples = []
        for _ in range(args.n):
            start = time.perf_counter()
            try:
                client.request("opscope/noSuchMethod", {})
            except LspError:  # MethodNotFound is the expected answer
                pass
            samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    p50 = samples[len(samples) // 2]
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
    print(f"round-trip floor over {args.n} requests: p50 {p50:.3f} ms, p99 {p99:.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
