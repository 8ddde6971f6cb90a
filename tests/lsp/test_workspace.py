"""Session-level behaviour: progress while loading, editor settings (pushed and
pulled), file watchers, the log level, position encodings, several projects in
one workspace. (--port and --socket: test_listener.py.)"""

import shutil

import pytest

from conftest import QUANT_CONFIG, text_position, write_project


def status(client, state, start=0, timeout=120):
    return client.wait_notification(lambda n: n["method"] == "opscope/status"
                                    and n["params"]["state"] == state, timeout, start)


def test_progress_begin_and_end_while_the_model_loads(make_client, tmp_path, resnet_archive):
    shutil.copy(resnet_archive, tmp_path / "model.pt2")
    config = write_project(tmp_path, "model: model.pt2\n")
    client = make_client()
    client.initialize(tmp_path, {"window": {"workDoneProgress": True}})
    client.open(config)
    status(client, "ready")
    (create,) = [r for r in client.server_requests
                 if r["method"] == "window/workDoneProgress/create"]
    token = create["params"]["token"]
    progress = [n["params"]["value"] for n in client.notifications
                if n["method"] == "$/progress" and n["params"]["token"] == token]
    # The end may arrive just after the status; wait for it.
    end = client.wait_notification(lambda n: n["method"] == "$/progress"
                                   and n["params"]["value"]["kind"] == "end")
    progress = [n["params"]["value"] for n in client.notifications
                if n["method"] == "$/progress" and n["params"]["token"] == token]
    assert progress[0]["kind"] == "begin" and "model.pt2" in progress[0]["message"]
    assert progress[-1]["kind"] == "end" and "ready" in end["params"]["value"]["message"]
    assert client.shutdown_and_exit() == 0


def test_editor_settings_override_the_project_file(make_client, tmp_path, resnet_archive):
    shutil.copy(resnet_archive, tmp_path / "model.pt2")
    config = write_project(tmp_path, "mode: graph\n")  # no model here
    client = make_client()
    client.initialize(tmp_path)
    uri = client.open(config)
    diagnostics = client.diagnostics(uri, lambda d: any("does not name a model" in x["message"]
                                                        for x in d))
    assert diagnostics[0]["range"]["start"]["line"] == 0
    mark = client.mark()
    client.notify("workspace/didChangeConfiguration",
                  {"settings": {"opscope": {"model": str(tmp_path / "model.pt2")}}})
    status(client, "ready", start=mark)
    diagnostics = client.diagnostics(
        uri, lambda d: any(x.get("code") == "no-match" for x in d), start=mark)
    assert not any("does not name a model" in d["message"] for d in diagnostics)
    assert client.shutdown_and_exit() == 0


def test_settings_pulled_with_workspace_configuration(make_client, tmp_path, resnet_archive):
    shutil.copy(resnet_archive, tmp_path / "model.pt2")
    config = write_project(tmp_path, "mode: graph\n")
    client = make_client(configuration={"model": str(tmp_path / "model.pt2")})
    client.initialize(tmp_path, {"workspace": {"configuration": True,
                                               "didChangeWatchedFiles":
                                                   {"dynamicRegistration": True}}})
    uri = client.open(config)
    status(client, "ready")
    client.diagnostics(uri, lambda d: any(x.get("code") == "no-match" for x in d))
    methods = [r["method"] for r in client.server_requests]
    assert "workspace/configuration" in methods
    (registration,) = [r for r in client.server_requests
                       if r["method"] == "client/registerCapability"]
    watchers = registration["params"]["registrations"][0]["registerOptions"]["watchers"]
    assert {"globPattern": "**/opscope.yaml"} in watchers
    assert client.shutdown_and_exit() == 0


def test_init_options_and_watched_file_events(make_client, tmp_path, resnet_archive):
    config = write_project(tmp_path, "model: model.pt2\n")
    client = make_client(env={"OPSCOPE_LSP_POLL_MS": "600000"})  # events only, no polling
    client.initialize(tmp_path, options={"compressor": "quantizer"})
    uri = client.open(config)
    failed = status(client, "failed")
    assert "model.pt2" in failed["params"]["message"]
    mark = client.mark()
    shutil.copy(resnet_archive, tmp_path / "model.pt2")
    client.notify("workspace/didChangeWatchedFiles",
                  {"changes": [{"uri": (tmp_path / "model.pt2").as_uri(), "type": 1}]})
    status(client, "ready", start=mark)
    diagnostics = client.diagnostics(
        uri, lambda d: any(x.get("code") == "no-match" for x in d), start=mark)
    assert not any(d["range"]["start"]["line"] == 0 and d["severity"] == 1 for d in diagnostics)
    assert client.shutdown_and_exit() == 0


def test_editing_opscope_yaml_switches_the_model(make_client, tmp_path, resnet_archive):
    shutil.copy(resnet_archive, tmp_path / "model.pt2")
    config = write_project(tmp_path, "model: missing.pt2\nunknown_key: 1\n")
    client = make_client()
    client.initialize(tmp_path)
    uri = client.open(config)
    status(client, "failed")
    # The unknown key is reported with its file and line.
    client.wait_notification(lambda n: n["method"] == "window/logMessage"
                             and "opscope.yaml:2" in n["params"]["message"]
                             and "unknown_key" in n["params"]["message"])
    mark = client.mark()
    (tmp_path / "opscope.yaml").write_text("model: model.pt2\n")
    status(client, "ready", start=mark)
    diagnostics = client.diagnostics(
        uri, lambda d: any(x.get("code") == "no-match" for x in d), start=mark)
    assert not any("missing.pt2" in d["message"] for d in diagnostics)
    assert client.shutdown_and_exit() == 0


def test_log_level_filters_window_log_message(make_client, tmp_path):
    debug = make_client(args=("lsp", "--log-level", "debug"))
    debug.initialize(tmp_path)
    debug.request("textDocument/hover", text_position("file:///nope.yaml", 0, 0))
    debug.wait_notification(lambda n: n["method"] == "window/logMessage"
                            and "textDocument/hover" in n["params"]["message"])
    assert debug.shutdown_and_exit() == 0

    quiet = make_client(args=("lsp", "--log-level", "error"))
    quiet.initialize(tmp_path)
    quiet.notify("custom/unknownNotification", {})
    quiet.request("textDocument/hover", text_position("file:///nope.yaml", 0, 0))
    assert quiet.shutdown_and_exit() == 0
    assert not [n for n in quiet.notifications if n["method"] == "window/logMessage"]


def test_position_encodings(make_client, tmp_path):
    # "😀" is two UTF-16 code units and four UTF-8 bytes; the duplicate key's
    # range must be counted in the units the client negotiated.
    text = 'quantization_config:\n  module_name_configs:\n    "😀x": {}\n    "😀x": {}\n'
    for offered, encoding, key_end in ((None, "utf-16", 9), (["utf-8", "utf-16"], "utf-8", 11)):
        client = make_client()
        caps = {"general": {"positionEncodings": offered}} if offered else {}
        init = client.initialize(tmp_path, caps)
        assert init["capabilities"]["positionEncoding"] == encoding
        uri = client.open(tmp_path / "q.yaml", text)
        diagnostics = client.diagnostics(
            uri, lambda d: any(x.get("code") == "duplicate-key" for x in d))
        (duplicate,) = [d for d in diagnostics if d.get("code") == "duplicate-key"]
        assert duplicate["range"] == {"start": {"line": 3, "character": 4},
                                      "end": {"line": 3, "character": key_end}}
        # An incremental edit after the emoji lands where the client means it:
        # replace "x" on line 3 by "y", which removes the duplicate.
        mark = client.mark()
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"range": {"start": {"line": 3, "character": key_end - 2},
                                          "end": {"line": 3, "character": key_end - 1}},
                                "text": "y"}]})
        diagnostics = client.diagnostics(uri, start=mark)
        assert not any(d.get("code") == "duplicate-key" for d in diagnostics)
        assert client.shutdown_and_exit() == 0


def test_several_projects_each_with_its_own_model(make_client, tmp_path, resnet_archive):
    good = tmp_path / "good"
    broken = tmp_path / "broken"
    good.mkdir()
    shutil.copy(resnet_archive, good / "model.pt2")
    good_config = write_project(good, "model: model.pt2\n")
    broken_config = write_project(broken, "model: elsewhere/missing.pt2\n")
    client = make_client()
    client.initialize(tmp_path)
    good_uri = client.open(good_config)
    broken_uri = client.open(broken_config)
    client.diagnostics(good_uri, lambda d: any(x.get("code") == "no-match" for x in d))
    broken_diags = client.diagnostics(broken_uri,
                                      lambda d: any("missing.pt2" in x["message"] for x in d))
    assert broken_diags[0]["range"]["start"]["line"] == 0
    models = {n["params"]["model"] for n in client.notifications
              if n["method"] == "opscope/status"}
    assert models == {"model.pt2", "elsewhere/missing.pt2"}
    # Closing a config clears its diagnostics; the other project keeps its model.
    mark = client.mark()
    client.notify("textDocument/didClose", {"textDocument": {"uri": broken_uri}})
    assert client.diagnostics(broken_uri, start=mark) == []
    reply = client.result("textDocument/hover", text_position(good_uri, 4, 8))
    assert "conv2d" in reply["contents"]["value"]
    assert client.shutdown_and_exit() == 0
