"""A project whose venv holds a fake coreai-opt 0.5.0, for the tests that a project gets its
own coreai-opt version's schema (issue 11): the LSP's and `opscope check`'s.

The venv is only what opscope reads without running anything (a `coreai_opt-0.5.0.dist-info`
folder) and a `bin/python` script: asked for the export helper's `schema -o FILE`, it writes
0.5.0's dump (and leaves a marker); the model's export fails at once (this venv has no torch).
0.5.0 differs from the built-in 0.4.0 schema in two ways a user sees:
  - QuantizationSpec takes a new key, `rounding_mode` (0.4.0 ignores it, with a warning);
  - `qscheme: symmetric_with_clipping` is gone (0.4.0 takes it).
"""

from __future__ import annotations

import copy
import json
import stat
import textwrap
from pathlib import Path

BUILTIN_DUMP = (Path(__file__).resolve().parents[1] / "core" / "dialects" / "coreai" / "schema" / "data"
                / "coreai-opt-0.4.0.json")
VERSION = "0.5.0"
MARKER = "schema-dumped"
NEW_KEY_DOC = "How values are rounded to the quantization grid (new in 0.5.0)."

CONFIG = textwrap.dedent("""\
    quantization_config:
      global_config:
        op_state_spec:
          weight:
            qscheme: symmetric_with_clipping
            rounding_mode: stochastic
    """)
QSCHEME_LINE, ROUNDING_LINE = 4, 5


def dump_050() -> dict:
    """The built-in 0.4.0 dump, changed as 0.5.0 would be."""
    dump = copy.deepcopy(json.loads(BUILTIN_DUMP.read_text()))
    dump["coreai_opt"] = VERSION
    spec = dump["models"]["QuantizationSpec"]
    qscheme = next(f for f in spec["fields"] if f["name"] == "qscheme")
    qscheme["type"]["values"].remove("symmetric_with_clipping")
    spec["fields"].append({"name": "rounding_mode",
                           "type": {"kind": "enum", "values": ["nearest", "stochastic"],
                                    "aliases": [], "name": "RoundingMode"},
                           "required": False, "default": "nearest", "doc": NEW_KEY_DOC})
    return dump


def make(root: Path, dump_text: str | None = None, hang: bool = False,
         system: bool = False) -> Path:
    """Writes the project (opscope.yaml naming model.py:build, run with .venv/bin/python);
    returns the config. `dump_text`: what the fake helper writes instead of 0.5.0's dump;
    `hang`: the dump never ends (it sleeps for a minute first). `system`: no venv: the
    interpreter is `python3` of a prefix installation in ROOT/prefix (put ROOT/prefix/bin on
    PATH), and the project file names it by command name."""
    root = Path(root).resolve()
    prefix = root / ("prefix" if system else ".venv")
    site = prefix / "lib" / "python3.11" / "site-packages"
    (site / f"coreai_opt-{VERSION}.dist-info").mkdir(parents=True)
    dump = prefix / "fake-schema.json"
    dump.write_text(json.dumps(dump_050()) if dump_text is None else dump_text)
    python = prefix / "bin" / ("python3" if system else "python")
    python.parent.mkdir(parents=True)
    # argv: HELPER schema -o FILE (model::schema_dump_command); anything else is an export.
    python.write_text(textwrap.dedent(f"""\
        #!/bin/sh
        if [ "$2" = schema ] && [ "$3" = -o ]; then
          touch '{root / MARKER}'
          {"sleep 60" if hang else ""}
          cp '{dump}' "$4"
          exit 0
        fi
        echo "opscope-export: error: this fake venv has no torch" >&2
        exit 1
        """))
    python.chmod(python.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    (root / "model.py").write_text("def build():\n    raise SystemExit('never built')\n")
    (root / "opscope.yaml").write_text(
        f"model: model.py:build\npython: {'python3' if system else '.venv/bin/python'}\n")
    (root / "configs").mkdir()
    config = root / "configs" / "quant.yaml"
    config.write_text(CONFIG)
    return config


def dumped(root: Path) -> bool:
    return (Path(root) / MARKER).exists()
