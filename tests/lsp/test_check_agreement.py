"""`opscope check` and the editor give identical diagnostics (issue 15): both are faces of one
workspace (engine/workspace), so every config in the tests, checked with `opscope check --json`
and opened in `opscope lsp`, must get the same diagnostics: code, range, message, severity.

The corpus is every committed config with a coreai-opt root key (the fuzzers' seed configs,
the example) and a few written here for what those lack (palettization and pruning roots,
module and op types, non-ASCII names). It is checked with a model, without one, and in a
project whose `mode: graph` the palettizer and pruner configs must ignore."""

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from conftest import SOURCE_DIR

# A copy of kCompressors (core/dialects/coreai/tables/src/compressors.cpp); tests/editors/compressor_tables.py: root keys.
ROOT_KEYS = ("quantization_config", "kmeans_palettization_config", "magnitude_pruning_config")
SEVERITIES = {1: "error", 2: "warning", 3: "note"}

WRITTEN_HERE = {
    "palettize.yaml": """kmeans_palettization_config:
  global_config:
    op_state_spec: {weight: {n_bits: 4}}
  module_type_configs:
    torch.nn.modules.conv.Conv2d: null
    Linear: null
  module_name_configs:
    "layer1\\\\..*":
      op_type_config:
        conv2d: null
        relu: null
    layer9.*: null
""",
    "prune.json": json.dumps({"magnitude_pruning_config": {
        "module_name_configs": {"layer[12]\\.0": None, "fc(": None, "nope": None},
        "module_type_configs": {"torch.nn.modules.linear.Lineer": None}}}, indent=2),
    "types.yaml": """quantization_config:
  execution_mode: eager
  module_type_configs:
    torch.nn.modules.conv.Conv2d:
      op_type_config:
        conv2d: {}
        linear: {}
        relu_: {}
  module_name_configs:
    "(?=layer)layer1": null
    "": null
  op_type_config: {}
""",
    "unicode.yaml": """quantization_config:
  module_name_configs:
    "ünïcødé.*": null   # a name no model has
    "layer1.0.çonv1": null
    "\U0001F600": null
""",
}


def corpus() -> dict[str, str]:
    files = {}
    for folder in ("tests/fuzz/corpus/config_yaml", "tests/fuzz/corpus/config_json",
                   "examples/resnet"):
        for path in sorted((SOURCE_DIR / folder).iterdir()):
            text = path.read_bytes().decode("utf-8", errors="replace")
            if path.suffix in (".yaml", ".json") and any(k in text for k in ROOT_KEYS):
                files[f"{path.parent.name}-{path.name}"] = path.read_bytes()
    for name, text in WRITTEN_HERE.items():
        files[name] = text.encode()
    return files


def write_corpus(folder: Path) -> list[Path]:
    (folder / "configs").mkdir(parents=True)
    paths = []
    for name, data in corpus().items():
        path = folder / "configs" / name
        path.write_bytes(data)
        paths.append(path)
    return paths


def from_check(opscope_bin, folder, paths, env) -> dict[str, list]:
    run = subprocess.run([str(opscope_bin), "check", "--json", *[str(p) for p in paths]],
                         cwd=folder, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode in (0, 1), run.stderr
    found = {str(p): [] for p in paths}
    for line in run.stdout.splitlines():
        d = json.loads(line)
        start, end = d["range"]["start"], d["range"]["end"]
        found[d["file"]].append((d["code"], d["severity"], d["message"],
                                 (start[0], start[1]), (end[0], end[1])))
    return found


def char_column(line: str, utf16: int) -> int:
    """The 1-based character column of a UTF-16 offset in `line`."""
    units = 0
    for i, ch in enumerate(line):
        if units >= utf16:
            return i + 1
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(line) + 1 + max(utf16 - units, 0)


def settle(client, uris, timeout=300):
    """Waits until every open config was checked once and no model is loading any more."""
    for uri in uris:
        client.wait_notification(lambda n: n["method"] == "textDocument/publishDiagnostics"
                                 and n["params"]["uri"] == uri, 120)
    deadline = time.monotonic() + timeout
    while True:
        with client.cond:
            notes = list(client.notifications)
        states = {n["params"]["model"]: n["params"]["state"] for n in notes
                  if n["method"] == "opscope/status"}
        if all(state != "loading" for state in states.values()):
            return states
        assert time.monotonic() < deadline, states
        time.sleep(0.2)


def from_editor(client, paths) -> dict[str, list]:
    texts = {p: p.read_bytes().decode("utf-8", errors="replace") for p in paths}
    uris = {client.open(p, text=texts[p],
                        language="json" if p.suffix == ".json" else "yaml"): p for p in paths}
    settle(client, uris)
    # Every model has loaded (or failed): edit each config (same text) and take what follows.
    mark = client.mark()
    for uri, path in uris.items():
        client.change(uri, 2, texts[path])
    found = {}
    for uri, path in uris.items():
        note = client.wait_notification(
            lambda n: n["method"] == "textDocument/publishDiagnostics"
            and n["params"]["uri"] == uri and n["params"].get("version") == 2, 120, mark)
        # The reader's lines: a lone CR ends a line there too, as in `opscope check`.
        lines = re.split(r"\r\n|\r|\n", texts[path])

        def position(p):
            text = lines[p["line"]] if p["line"] < len(lines) else ""
            return (p["line"] + 1, char_column(text, p["character"]))

        found[str(path)] = [(d.get("code"), SEVERITIES[d["severity"]], d["message"],
                             position(d["range"]["start"]), position(d["range"]["end"]))
                            for d in note["params"]["diagnostics"]]
    return found


def compare(check, editor):
    assert check.keys() == editor.keys()
    differing = {Path(path).name: {"check only": sorted(set(check[path]) - set(editor[path])),
                                   "editor only": sorted(set(editor[path]) - set(check[path]))}
                 for path in check if sorted(check[path]) != sorted(editor[path])}
    assert not differing, json.dumps(differing, indent=1, ensure_ascii=False)
    # The corpus is only worth comparing if it finds something.
    assert sum(len(d) for d in check.values()) >= len(check)


@pytest.fixture
def env(tmp_path):
    # The same cache and consent folders as the make_client servers use.
    return dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"),
                XDG_CONFIG_HOME=str(tmp_path / "config"))


@pytest.mark.parametrize("project_file", ["model: model.pt2\n", "model: model.pt2\nmode: graph\n"])
def test_check_and_editor_agree_with_a_model(make_client, opscope_bin, tmp_path, env,
                                             resnet_archive, project_file):
    folder = tmp_path / "project"
    paths = write_corpus(folder)
    shutil.copy(resnet_archive, folder / "model.pt2")
    (folder / "opscope.yaml").write_text(project_file)
    check = from_check(opscope_bin, folder, paths, env)

    client = make_client()
    client.initialize(folder)
    editor = from_editor(client, paths)
    compare(check, editor)
    # What the comparison is about: names were checked against the model.
    assert any(d[0] == "no-match" for found in check.values() for d in found)
    assert client.shutdown_and_exit() == 0


def test_check_and_editor_agree_without_a_model(make_client, opscope_bin, tmp_path, env):
    folder = tmp_path / "alone"
    paths = write_corpus(folder)
    check = from_check(opscope_bin, folder, paths, env)
    client = make_client()
    client.initialize(folder)
    editor = from_editor(client, paths)
    compare(check, editor)
    assert all(any(d[0] == "no-model" and d[1] == "error" for d in found)
               for found in check.values())
    assert client.shutdown_and_exit() == 0
