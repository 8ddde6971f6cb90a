"""A project whose venv has another coreai-opt version gets that version's schema (issue 11):
its dump is made by the project's interpreter once the user trusts the project, off the
request thread, and diagnostics, completion and hover all follow it. Until then, and when the
dump fails, the built-in 0.4.0 copy serves.

The venv is a fake (tests/coreai_versions.py): a coreai-opt 0.5.0 dist-info folder and a
`python` script that writes 0.5.0's dump, where QuantizationSpec takes a new `rounding_mode`
and `qscheme: symmetric_with_clipping` is gone.
"""

import json
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import coreai_versions as v050  # noqa: E402
from conftest import text_position  # noqa: E402

SETTLE_S = 1.0  # long enough for a dump to have started if it were going to


def codes_at(diagnostics, line):
    return sorted(d["code"] for d in diagnostics
                  if d["range"]["start"]["line"] == line and d.get("code", "").startswith("schema-"))


def labels(client, uri, line, character, text):
    client.change(uri, next(VERSIONS), text)
    items = client.result("textDocument/completion", text_position(uri, line, character))
    return [item["label"] for item in items["items"]]


VERSIONS = iter(range(2, 1000))


def test_the_venvs_coreai_opt_schema_serves_once_trusted(make_client, tmp_path):
    repo = tmp_path / "repo"
    config = v050.make(repo)
    client = make_client()
    client.message_action = "Not now"
    client.initialize(repo)
    uri = client.open(config)

    # Untrusted: nothing runs; the built-in 0.4.0 schema ignores the new key and takes the
    # removed value.
    diagnostics = client.diagnostics(uri, lambda d: any(x.get("code") == "untrusted-project"
                                                        for x in d))
    assert codes_at(diagnostics, v050.ROUNDING_LINE) == ["schema-ignored-key"], diagnostics
    assert codes_at(diagnostics, v050.QSCHEME_LINE) == [], diagnostics
    time.sleep(SETTLE_S)
    assert not v050.dumped(repo)
    # A new key typed under `weight:` (the written `rounding_mode` taken out: a key already
    # there is not offered again).
    key_line = v050.CONFIG.replace("rounding_mode: stochastic", "")
    assert "rounding_mode" not in labels(client, uri, v050.ROUNDING_LINE, 8, key_line)

    # Trusted: the dump runs in the background and the config is checked again by its own
    # version's models, with no edit.
    mark = client.mark()
    reply = client.request("workspace/executeCommand",
                           {"command": "opscope.trustProject", "arguments": [uri]})
    assert "error" not in reply, reply
    diagnostics = client.diagnostics(
        uri, lambda d: codes_at(d, v050.QSCHEME_LINE) == ["schema-value"], start=mark)
    assert v050.dumped(repo)
    assert codes_at(diagnostics, v050.ROUNDING_LINE) == [], diagnostics
    (qscheme,) = [d for d in diagnostics if d.get("code") == "schema-value"]
    assert "symmetric_with_clipping" in qscheme["message"], qscheme
    cached = tmp_path / "cache" / "opscope" / "schema" / f"coreai-opt-{v050.VERSION}.json"
    assert json.loads(cached.read_text())["coreai_opt"] == v050.VERSION

    # Completion and hover read the same schema.
    assert "rounding_mode" in labels(client, uri, v050.ROUNDING_LINE, 8, key_line)
    value_line = v050.CONFIG.replace("symmetric_with_clipping", "")
    values = labels(client, uri, v050.QSCHEME_LINE, len("        qscheme: "), value_line)
    assert "symmetric" in values and "symmetric_with_clipping" not in values, values
    client.change(uri, next(VERSIONS), v050.CONFIG)
    hover = client.result("textDocument/hover", text_position(uri, v050.ROUNDING_LINE, 10))
    assert v050.NEW_KEY_DOC in hover["contents"]["value"], hover
    assert client.shutdown_and_exit() == 0


def test_an_interpreter_outside_a_venv_gets_its_own_schema(make_client, tmp_path):
    # `python: python3`, found on PATH, installed in a prefix (no pyvenv.cfg): its
    # site-packages say 0.5.0, and once trusted its own dump serves.
    repo = tmp_path / "repo"
    config = v050.make(repo, system=True)
    client = make_client(env={"PATH": f"{repo / 'prefix' / 'bin'}:/usr/bin:/bin"})
    client.message_action = "Not now"
    client.initialize(repo)
    uri = client.open(config)
    client.diagnostics(uri, lambda d: any(x.get("code") == "untrusted-project" for x in d))
    assert not v050.dumped(repo)
    mark = client.mark()
    reply = client.request("workspace/executeCommand",
                           {"command": "opscope.trustProject", "arguments": [uri]})
    assert "error" not in reply, reply
    diagnostics = client.diagnostics(
        uri, lambda d: codes_at(d, v050.QSCHEME_LINE) == ["schema-value"], start=mark)
    assert v050.dumped(repo)
    assert codes_at(diagnostics, v050.ROUNDING_LINE) == [], diagnostics
    assert client.shutdown_and_exit() == 0


@pytest.mark.parametrize("hang,why", [
    (False, "what it wrote is not a schema dump"),
    # OPSCOPE_LSP_TIMEOUT_MS bounds the dump too (120 s at most): a stuck one is stopped.
    (True, "the export helper's schema command did not finish in time and was stopped")])
def test_a_failed_dump_says_which_file_and_the_builtin_schema_stays(make_client, tmp_path,
                                                                   hang, why):
    repo = tmp_path / "repo"
    config = v050.make(repo, dump_text="{not a dump", hang=hang)
    client = make_client(env={"OPSCOPE_LSP_TIMEOUT_MS": "1500"})
    client.message_action = "Trust and export"
    client.initialize(repo)
    uri = client.open(config)
    cached = tmp_path / "cache" / "opscope" / "schema" / f"coreai-opt-{v050.VERSION}.json"
    note = client.wait_notification(lambda n: n["method"] == "window/showMessage"
                                    and "schema" in n["params"]["message"])
    message = note["params"]["message"]
    assert message.startswith(f"opscope cannot make the schema of coreai-opt {v050.VERSION} "
                              f"({cached}) with {repo / '.venv' / 'bin' / 'python'}: {why}"), message
    assert "checked against the built-in 0.4.0 schema" in message, message
    assert not cached.exists()
    assert not list(cached.parent.glob(".*.partial")), "the partial dump is left behind"
    # Still checked, by 0.4.0; an edit does not run the failing dump again.
    mark = client.mark()
    client.change(uri, 2, v050.CONFIG + "\n")
    diagnostics = client.diagnostics(uri, start=mark)
    assert codes_at(diagnostics, v050.ROUNDING_LINE) == ["schema-ignored-key"], diagnostics
    (repo / v050.MARKER).unlink()
    time.sleep(SETTLE_S)
    assert not v050.dumped(repo)
    assert client.shutdown_and_exit() == 0
