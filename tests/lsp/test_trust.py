"""Nothing a repository names runs before the user trusts it (issue 14, code execution).

A hostile repository (tests/hostile_repo.py) leaves a marker for each way opscope could run
its code: `python: tools/evil.sh`, the repository's own .venv/bin/python, model.py's import.
Before consent: no marker, an `untrusted-project` diagnostic, and one window/showMessageRequest.
"Trust and export" runs the export (a real tiny model); "Not now" and a changed opscope.yaml
run nothing.
"""

import os
import stat
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import hostile_repo  # noqa: E402

# Long enough for the server to have exported if it were going to (it starts at once).
SETTLE_S = 2.0


def untrusted(diagnostics):
    return [d for d in diagnostics if d.get("code") == "untrusted-project"]


def questions(client):
    return [r for r in client.server_requests if r["method"] == "window/showMessageRequest"]


def open_untrusted(client, config):
    uri = client.open(config)
    (diagnostic,) = untrusted(client.diagnostics(uri, lambda d: bool(untrusted(d))))
    return uri, diagnostic


def status_states(client):
    return [n["params"]["state"] for n in client.notifications if n["method"] == "opscope/status"]


def wait_ready(client, start=0):
    note = client.wait_notification(lambda n: n["method"] == "opscope/status"
                                    and n["params"]["state"] in ("ready", "failed"),
                                    timeout=240, start=start)
    assert note["params"]["state"] == "ready", note


def test_python_setting_runs_nothing_before_trust(make_client, tmp_path):
    repo = tmp_path / "repo"
    config = hostile_repo.make(repo)
    client = make_client()
    client.message_action = "Not now"
    client.initialize(repo)
    uri, diagnostic = open_untrusted(client, config)
    assert diagnostic["range"]["start"]["line"] == 0
    assert diagnostic["message"].startswith(
        "opscope.yaml names a Python model (model.py:build) that opscope would run with "
        "tools/evil.sh; run `opscope trust " + str(repo / "opscope.yaml") + "`"), diagnostic
    (question,) = questions(client)
    assert question["params"]["message"] == (
        f"opscope: {repo / 'opscope.yaml'} wants to run model.py:build with tools/evil.sh. "
        "Trust this project?")
    assert [a["title"] for a in question["params"]["actions"]] == ["Trust and export", "Not now"]

    # Typing and asking again re-check the config but do not ask twice for the same content.
    client.change(uri, 2, hostile_repo.CONFIG + "\n")
    client.diagnostics(uri, lambda d: bool(untrusted(d)), start=client.mark())
    client.result("textDocument/hover", {"textDocument": {"uri": uri},
                                         "position": {"line": 2, "character": 4}})
    time.sleep(SETTLE_S)
    assert hostile_repo.markers(repo) == []
    assert len(questions(client)) == 1
    assert "loading" not in status_states(client)
    assert not (tmp_path / "config" / "opscope" / "trusted.json").exists()
    assert client.shutdown_and_exit() == 0


def test_repository_venv_is_not_run_before_trust(make_client, tmp_path):
    repo = tmp_path / "repo"
    config = hostile_repo.make(repo, venv=True)
    client = make_client()
    client.initialize(repo)  # the client dismisses the question (no answer)
    _, diagnostic = open_untrusted(client, config)
    assert "that opscope would run with .venv/bin/python" in diagnostic["message"], diagnostic
    time.sleep(SETTLE_S)
    assert hostile_repo.markers(repo) == []
    assert len(questions(client)) == 1


def test_editor_settings_are_untrusted_too(make_client, tmp_path):
    repo = tmp_path / "repo"
    config = hostile_repo.make(repo, project=False)
    client = make_client()
    client.initialize(repo, options={"model": "model.py:build", "python": "tools/evil.sh",
                                     "inputs": ["1x8"]})
    _, diagnostic = open_untrusted(client, config)
    assert diagnostic["message"].startswith(
        "the editor settings name a Python model (model.py:build) that opscope would run with "
        "tools/evil.sh"), diagnostic
    assert "opscope: the editor settings want to run" in questions(client)[0]["params"]["message"]
    time.sleep(SETTLE_S)
    assert hostile_repo.markers(repo) == []


def test_untrusted_editor_workspace_never_asks_and_never_runs(make_client, tmp_path,
                                                             trust_project):
    repo = tmp_path / "repo"
    config = hostile_repo.make(repo)
    trust_project(repo / "opscope.yaml")  # even a trusted project waits for the editor's trust
    client = make_client()
    client.message_action = "Trust and export"
    client.initialize(repo, options={"workspaceTrusted": False})
    uri, diagnostic = open_untrusted(client, config)
    assert "the editor's workspace is not trusted" in diagnostic["message"], diagnostic
    reply = client.request("workspace/executeCommand",
                           {"command": "opscope.trustProject", "arguments": [uri]})
    assert "workspace is not trusted" in reply["error"]["message"], reply
    actions = client.result("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0},
                                                "end": {"line": 0, "character": 0}},
        "context": {"diagnostics": []}})
    assert not [a for a in actions if "command" in a]
    time.sleep(SETTLE_S)
    assert questions(client) == []
    assert hostile_repo.markers(repo) == []


def test_trust_and_export_runs_it_and_an_edit_asks_again(make_client, tmp_path, python_exe,
                                                        inspect_bin):
    repo = tmp_path / "repo"
    config = hostile_repo.make(repo, real_python=python_exe)
    client = make_client()
    client.message_action = "Trust and export"
    client.initialize(repo)
    uri = client.open(config)
    wait_ready(client)
    # What the user allowed ran, and the names came from it.
    assert hostile_repo.markers(repo) == ["pwned-by-python-setting", "pwned-by-import"]
    diagnostics = client.diagnostics(uri, lambda d: any(x.get("code") == "no-match" for x in d))
    assert not untrusted(diagnostics)
    store = tmp_path / "config" / "opscope" / "trusted.json"
    assert stat.S_IMODE(store.stat().st_mode) == 0o600
    assert str(repo / "opscope.yaml") in store.read_text()

    # The repository changes opscope.yaml: consent is gone, the server asks again and, told
    # "Not now", runs nothing, even when the model's source changes too.
    for marker in hostile_repo.MARKERS:
        (repo / marker).unlink(missing_ok=True)
    client.message_action = "Not now"
    mark = client.mark()
    (repo / "opscope.yaml").write_text((repo / "opscope.yaml").read_text() + "mode: eager\n")
    client.diagnostics(uri, lambda d: bool(untrusted(d)), start=mark)
    assert len(questions(client)) == 2
    (repo / "model.py").write_text((repo / "model.py").read_text() + "\n# changed\n")
    time.sleep(SETTLE_S)
    assert hostile_repo.markers(repo) == []
    assert client.shutdown_and_exit() == 0


def test_code_action_trusts_after_not_now(make_client, tmp_path, python_exe, inspect_bin):
    repo = tmp_path / "repo"
    config = hostile_repo.make(repo, venv=True, real_python=python_exe)
    client = make_client()
    client.message_action = "Not now"
    init = client.initialize(repo)
    assert "opscope.trustProject" in init["capabilities"]["executeCommandProvider"]["commands"]
    uri, diagnostic = open_untrusted(client, config)
    actions = client.result("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": diagnostic["range"],
        "context": {"diagnostics": [diagnostic]}})
    (action,) = [a for a in actions if "command" in a]
    assert action["title"] == "Trust this project and export model.py:build"
    assert action["command"]["command"] == "opscope.trustProject"
    assert hostile_repo.markers(repo) == []
    result = client.result("workspace/executeCommand", action["command"])
    assert result == {"trusted": [str(repo / "opscope.yaml")]}
    wait_ready(client)
    assert hostile_repo.markers(repo) == ["pwned-by-venv", "pwned-by-import"]


def test_trust_project_command_takes_the_project_file_path(make_client, tmp_path):
    repo = tmp_path / "repo"
    config = hostile_repo.make(repo)  # evil.sh fails after leaving its marker
    client = make_client()
    client.message_action = "Not now"
    client.initialize(repo)
    open_untrusted(client, config)
    assert hostile_repo.markers(repo) == []
    result = client.result("workspace/executeCommand", {
        "command": "opscope.trustProject", "arguments": [str(repo / "opscope.yaml")]})
    assert result == {"trusted": [str(repo / "opscope.yaml")]}
    # What the user allowed now runs: the project's interpreter (which then fails).
    client.wait_notification(lambda n: n["method"] == "opscope/status"
                             and n["params"]["state"] == "failed", timeout=60)
    assert hostile_repo.markers(repo) == ["pwned-by-python-setting"]


def test_trust_project_command_on_a_fifo_answers_instead_of_blocking(make_client, tmp_path):
    # A client may name any path; reading a FIFO would block the server forever.
    repo = tmp_path / "repo"
    hostile_repo.make(repo)
    pipe = repo / "configs" / "pipe.yaml"
    os.mkfifo(pipe)
    client = make_client()
    client.initialize(repo)
    reply = client.request("workspace/executeCommand",
                           {"command": "opscope.trustProject", "arguments": [str(pipe)]})
    assert "cannot read" in reply["error"]["message"], reply
    assert "not a regular file" in reply["error"]["message"], reply
    # ... and the server still answers.
    again = client.request("workspace/executeCommand",
                           {"command": "opscope.trustProject", "arguments": [str(pipe)]})
    assert "error" in again
    assert hostile_repo.markers(repo) == []
