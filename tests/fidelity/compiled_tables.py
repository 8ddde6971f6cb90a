"""The compressor table as compiled into opscope (core/dialects/coreai/tables/src/compressors.cpp), read
through tests/fidelity/dump_compressor_tables.cpp (ctest sets OPSCOPE_COMPRESSOR_TABLES)."""

from __future__ import annotations

import json
import os
import subprocess


def compiled_tables() -> dict:
    tool = os.environ.get("OPSCOPE_COMPRESSOR_TABLES")
    assert tool, "OPSCOPE_COMPRESSOR_TABLES is not set: run this test through ctest"
    out = subprocess.run([tool], check=True, capture_output=True, text=True, timeout=60).stdout
    return json.loads(out)


def pairs(entries: list) -> set[tuple[str, str]]:
    return {(function, op_type) for function, op_type in entries}
