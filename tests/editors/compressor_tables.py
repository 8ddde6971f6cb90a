"""The editors cannot link the compressor table (kCompressors in
core/dialects/coreai/tables/src/compressors.cpp), so each keeps a copy of its root keys
(`quantization_config`, ...) and config classes (`QuantizerConfig`, ...) to decide which files
to serve. Every copy sits below a comment naming this file and what it copies
("compressor_tables.py: root keys" or "...: config classes"); this test reads the table as
compiled (tests/fidelity/dump_compressor_tables.cpp) and fails, naming the file and line to
update, when a copy differs. A user would notice a stale copy as an editor that never starts
opscope on a new compressor's configs."""

from __future__ import annotations

import re
import sys
from pathlib import Path

SOURCE_DIR = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(SOURCE_DIR / "tests" / "fidelity"))
from compiled_tables import compiled_tables  # noqa: E402

TABLE = "kCompressors (core/dialects/coreai/tables/src/compressors.cpp)"
MARKER = re.compile(r"compressor_tables\.py: (root keys|config classes)")
COMMENT = ("//", "/*", "*", "--", ";", "#")

# Every copy, by file: how many of each kind of marker it holds.
COPIES = {
    "editors/vscode/src/configDetection.ts": {"root keys": 1, "config classes": 1},
    "editors/neovim/lua/opscope/init.lua": {"root keys": 2, "config classes": 1},
    "editors/emacs/opscope.el": {"root keys": 2, "config classes": 1},
    "tests/lsp/test_check_agreement.py": {"root keys": 1},
}


def names(kind: str, code: str) -> list[str]:
    if kind == "root keys":
        return re.findall(r"\b[a-z][a-z0-9_]*_config\b", code)
    # `(?:Quantizer|KMeansPalettizer)Config`, as a regular expression writes them
    code = re.sub(r"\(\?:([\w|]+)\)Config",
                  lambda m: " ".join(f"{c}Config" for c in m.group(1).split("|")), code)
    return re.findall(r"\b[A-Z]\w*Config\b", code)


def copies(path: Path):
    """(line, kind, names) for each marked copy: the code lines below its marker, up to the
    next comment or blank line."""
    lines = path.read_text(encoding="utf-8").splitlines()
    for at, line in enumerate(lines):
        if not (m := MARKER.search(line)):
            continue
        code = []
        for below in lines[at + 1:]:
            stripped = below.strip()
            if not stripped or stripped.startswith(COMMENT):
                break
            code.append(below)
        yield at + 1, m.group(1), names(m.group(1), "\n".join(code))


def main() -> int:
    table = compiled_tables().values()
    expected = {
        "root keys": sorted(c["root_key"] for c in table),
        "config classes": sorted(c["config_classes"][0] for c in table),  # QuantizerConfig, ...
    }
    failures = []
    for relative, counts in COPIES.items():
        found = list(copies(SOURCE_DIR / relative))
        for kind, count in counts.items():
            marked = sum(1 for _, k, _ in found if k == kind)
            if marked != count:
                failures.append(f"{relative}: {marked} copies of the {kind} marked "
                                f"'compressor_tables.py: {kind}', expected {count}: put the "
                                f"comment back above each copy (or update COPIES in {__file__})")
        for line, kind, got in found:
            if sorted(got) != expected[kind]:
                missing = sorted(set(expected[kind]) - set(got))
                extra = sorted(set(got) - set(expected[kind]))
                failures.append(f"{relative}:{line}: its {kind} {sorted(got)} differ from {TABLE}'s "
                                f"{expected[kind]} (missing {missing}, not in the table {extra}): "
                                f"update {relative} to the table")
    for failure in failures:
        print(failure, file=sys.stderr)
    if not failures:
        print(f"every editor's copy of the root keys and config classes equals {TABLE}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
