"""torch.fx's node naming, as opscope's port of it expects: the installed torch must name
nodes as tests/unit/inspect/fx_namespace_cases.json says, the cases fx_namespace_tests replay
through core/inspect/src/fx_namespace.cpp. A torch release that names differently fails here:
regenerate the cases (python tests/unit/inspect/fx_namespace_cases.py) and fix the port until
fx_namespace_tests pass again."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit" / "inspect"))
import fx_namespace_cases  # noqa: E402


def test_installed_torch_names_nodes_as_the_committed_cases_say():
    committed = json.loads(fx_namespace_cases.CASES_FILE.read_text())
    made = fx_namespace_cases.cases()
    made["torch"] = committed["torch"]  # the names matter, not the version they came from
    for part in ("sequences", "illegal_names", "targets"):
        assert made[part] == committed[part], (
            f"torch names nodes differently from {fx_namespace_cases.CASES_FILE.name} "
            f"(made with torch {committed['torch']}) in its {part}")
