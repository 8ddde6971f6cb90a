"""Compare an opscope index with coreai-opt by hand (what the fidelity test does):

    PYTHONPATH=python python -m oracle FIXTURE|TARGET [--input SPEC]... [--mode graph|eager]
        [--compressor none|quantizer|kmeanspalettizer] [--index INDEX.json]

Without --index, prints coreai-opt's canonical form as JSON. With --index, prints the
differences (exit 1 if any). FIXTURE is a name from fixtures/registry.py.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings

_PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _PYTHON_DIR not in sys.path:
    sys.path.insert(0, _PYTHON_DIR)

from fixtures.registry import BY_NAME  # noqa: E402
from oracle import canonical  # noqa: E402
from oracle.inspector import build_target, oracle_canonicals  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m oracle", description=__doc__.splitlines()[0])
    parser.add_argument("model", help="fixture name or package.module:factory")
    parser.add_argument("--input", "-i", action="append", default=[])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mode", default="graph", choices=["graph", "eager"])
    parser.add_argument("--compressor", default="none")
    parser.add_argument("--index", help="opscope index file to compare")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")

    fixture = BY_NAME.get(args.model)
    target = fixture.target if fixture else args.model
    inputs = args.input or (list(fixture.inputs) if fixture else [])
    seed = fixture.seed if fixture and args.seed == 0 else args.seed
    compressor = None if args.compressor.lower() == "none" else args.compressor.lower()

    model, example = build_target(target, inputs, seed)
    expected = oracle_canonicals(model, example, args.mode, (compressor,))[compressor]
    if not args.index:
        json.dump(expected, sys.stdout, indent=1)
        print()
        return 0
    actual = canonical.from_index(args.index, compressor)
    lines = canonical.diff(expected, actual)
    print("\n".join(lines) if lines else "identical")
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
