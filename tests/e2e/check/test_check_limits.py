"""`opscope check` on hostile configs (issue 14): nesting 50,000 levels deep, a merge-key
bomb, deep indentation. Each used to kill the process (SIGSEGV) or never finish; now each
is one clear diagnostic at the position where the limit was crossed, and the lines after
it are still checked. No model is needed: the readers fail before any model is used."""

import os
import subprocess
from pathlib import Path

import pytest

DEPTH = 50_000
MAX_NESTING = 256  # kMaxNesting in core/config
# The block mappings around the value (document, quantization_config, module_name_configs).
BLOCK_LEVELS = 3


def run_check(folder: Path, name: str, text: str) -> subprocess.CompletedProcess:
    (folder / name).write_text(text)
    return subprocess.run([os.environ["OPSCOPE_BIN"], "check", name], cwd=folder,
                          env=dict(os.environ, XDG_CACHE_HOME=str(folder / "cache")),
                          capture_output=True, text=True, timeout=120)


def lines_with(out: str, code: str) -> list[str]:
    return [line for line in out.splitlines() if line.endswith(f"[{code}]")]


def around(value: str) -> str:
    # A typo on the line after the deep value: it must still be reported.
    return ("quantization_config:\n  module_name_configs:\n    x: " + value +
            "\n  module_name_config: {}\n")


@pytest.mark.parametrize("kind, value, column", [
    ("sequence", "[" * DEPTH + "]" * DEPTH, 8 + MAX_NESTING - BLOCK_LEVELS),
    ("mapping", "{a: " * DEPTH + "1" + "}" * DEPTH, 8 + 4 * (MAX_NESTING - BLOCK_LEVELS)),
    ("unclosed", "[" * DEPTH, 8 + MAX_NESTING - BLOCK_LEVELS),
])
def test_deep_flow_nesting_is_one_diagnostic(tmp_path, kind, value, column):
    run = run_check(tmp_path, f"{kind}.yaml", around(value))
    assert run.returncode == 1, run.stderr  # errors found; not a signal (negative code)
    deep = lines_with(run.stdout, "too-deep")
    assert deep == [f"{kind}.yaml:3:{column}: error: nesting deeper than {MAX_NESTING} levels; "
                    "coreai-opt configs need at most ~6: the rest of this value is skipped "
                    "[too-deep]"]
    assert any(line.startswith(f"{kind}.yaml:4:3:") and "module_name_config" in line
               for line in lines_with(run.stdout, "unknown-field")), run.stdout
    assert len(run.stdout.splitlines()) <= 5, run.stdout  # no flood of messages


def test_deep_json_is_one_diagnostic(tmp_path):
    text = ('{"quantization_config": {"module_name_configs": {"x": ' + "[" * DEPTH +
            "]" * DEPTH + '}, "module_name_config": {}}}\n')
    run = run_check(tmp_path, "deep.json", text)
    assert run.returncode == 1, run.stderr
    deep = lines_with(run.stdout, "too-deep")
    assert len(deep) == 1 and deep[0].startswith(
        f"deep.json:1:{text.index('[') + 1 + MAX_NESTING - BLOCK_LEVELS}: error:"), run.stdout
    assert lines_with(run.stdout, "unknown-field"), run.stdout


def test_deep_indentation_is_one_diagnostic(tmp_path):
    text = "quantization_config:\n  module_name_configs:\n    x:\n"
    text += "".join(" " * (5 + i) + "k:\n" for i in range(3000))
    text += "  module_name_config: {}\n"
    run = run_check(tmp_path, "indent.yaml", text)
    assert run.returncode == 1, run.stderr
    assert len(lines_with(run.stdout, "too-deep")) == 1, run.stdout
    assert lines_with(run.stdout, "unknown-field"), run.stdout


def test_merge_bomb_stops_with_one_diagnostic(tmp_path):
    text = "quantization_spec:\n  a0: &a0 {op_state_spec: {}}\n"
    for i in range(1, 30):
        text += f"  a{i}: &a{i} {{<<: [" + ", ".join([f"*a{i - 1}"] * 10) + "]}\n"
    text += "quantization_config:\n  global_config:\n    <<: *a29\n  module_name_config: {}\n"
    run = run_check(tmp_path, "bomb.yaml", text)
    assert run.returncode == 1, run.stderr
    bomb = lines_with(run.stdout, "alias-expansion")
    assert len(bomb) == 1 and "expand to more than 100000 entries" in bomb[0], run.stdout
    assert lines_with(run.stdout, "unknown-field"), run.stdout
