"""The issue's "Done when" items, against a ResNet-18-shaped model given as an
archive: completion of module names and op types, hover, no-match warnings
with quick fixes, go-to-definition, the summary command."""

import shutil

import pytest

from conftest import QUANT_CONFIG, pos, text_position, write_project


@pytest.fixture
def archive_project(tmp_path, resnet_archive):
    shutil.copy(resnet_archive, tmp_path / "model.pt2")
    return write_project(tmp_path, "# the model under test\nmodel: model.pt2\n")


@pytest.fixture
def ready_client(make_client, archive_project):
    """A client with quant.yaml open and its model loaded."""
    client = make_client()
    client.initialize(archive_project.parent.parent)
    uri = client.open(archive_project)
    client.wait_notification(lambda n: n["method"] == "opscope/status"
                             and n["params"]["state"] in ("ready", "failed"), timeout=120)
    return client, uri


def labels(completion):
    return {item["label"]: item for item in completion["items"]}


def test_completion_of_a_new_module_name_key(ready_client):
    client, uri = ready_client
    text = QUANT_CONFIG + "    lay"
    client.change(uri, 2, text)
    last = len(text.splitlines()) - 1
    completion = client.result("textDocument/completion", text_position(uri, last, 7))
    items = labels(completion)
    assert "layer1.0.conv1" in items
    assert items["layer1.0.conv1"]["detail"] == "torch.nn.modules.conv.Conv2d"
    edit = items["layer1.0.conv1"]["textEdit"]
    # Replaces the typed key, inserting a regex that full-matches the name.
    assert edit["range"]["start"] == pos(last, 4) and edit["range"]["end"] == pos(last, 7)
    assert edit["newText"].replace("\\", "") == "layer1.0.conv1"


def test_completion_sends_the_shared_range_once_to_clients_that_support_it(
        make_client, archive_project):
    # LSP 3.17 itemDefaults.editRange: what VS Code and Neovim advertise.
    client = make_client()
    client.initialize(archive_project.parent.parent, capabilities={"textDocument": {
        "completion": {"completionList": {"itemDefaults": ["commitCharacters", "editRange"]}}}})
    text = QUANT_CONFIG + "    lay"
    uri = client.open(archive_project, text)
    client.wait_notification(lambda n: n["method"] == "opscope/status"
                             and n["params"]["state"] in ("ready", "failed"), timeout=120)
    last = len(text.splitlines()) - 1
    completion = client.result("textDocument/completion", text_position(uri, last, 7))
    assert completion["itemDefaults"]["editRange"] == {"start": pos(last, 4), "end": pos(last, 7)}
    item = labels(completion)["layer1.0.conv1"]
    assert "textEdit" not in item
    assert item["textEditText"].replace("\\", "") == "layer1.0.conv1"


def test_op_type_completion_offers_compressible_types_only(ready_client):
    client, uri = ready_client
    text = "quantization_config:\n  global_config:\n    op_type_config:\n      \n"
    client.change(uri, 2, text)
    completion = client.result("textDocument/completion", text_position(uri, 3, 6))
    items = labels(completion)
    assert "conv2d" in items and "linear" in items
    assert "relu" not in items
    assert items["conv2d"]["detail"].startswith("20 ")  # ResNet-18 has 20 convolutions


def test_hover_on_a_pattern_reports_matched_ops(ready_client):
    client, uri = ready_client
    hover = client.result("textDocument/hover", text_position(uri, 4, 8))
    text = hover["contents"]["value"]
    assert "layer1\\..*" in text
    assert "ops" in text and "conv2d" in text
    assert "layer1.0.conv1" in text
    # Each op's source is a link to the user's own line, not into PyTorch.
    assert "[resnet_model.py:" in text and "conv.py" not in text, text


def test_no_match_warning_suggests_real_names_with_quick_fixes(ready_client):
    client, uri = ready_client
    diagnostics = client.diagnostics(uri, lambda d: any(x.get("code") == "no-match" for x in d))
    no_match = [d for d in diagnostics if d.get("code") == "no-match"]
    assert len(no_match) == 1
    warning = no_match[0]
    assert warning["severity"] == 2
    assert warning["range"]["start"] == pos(6, 4)
    assert "layer9.*" in warning["message"] and "layer1" in warning["message"]
    actions = client.result("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": warning["range"],
        "context": {"diagnostics": [warning]}})
    assert actions, "a quick fix per suggested name"
    fix = actions[0]
    assert fix["kind"] == "quickfix" and fix.get("isPreferred")
    (edit,) = fix["edit"]["changes"][uri]
    assert edit["range"] == warning["range"]
    assert edit["newText"].startswith("layer")
    # The other keys are fine: nothing else is flagged.
    assert all(d.get("code") != "no-match" or d["range"]["start"]["line"] == 6
               for d in diagnostics)


def test_fixing_the_config_clears_the_warning(ready_client):
    client, uri = ready_client
    client.diagnostics(uri, lambda d: any(x.get("code") == "no-match" for x in d))
    mark = client.mark()
    client.change(uri, 3, QUANT_CONFIG.replace("layer9.*", "layer4.*"))
    diagnostics = client.diagnostics(uri, start=mark)
    assert not any(d.get("code") == "no-match" for d in diagnostics)


def test_incremental_edits_mid_key(ready_client):
    client, uri = ready_client
    client.diagnostics(uri, lambda d: any(x.get("code") == "no-match" for x in d))
    mark = client.mark()
    # Replace the "9" of layer9.* with "3", as an editor sends a keystroke.
    client.notify("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": 5},
        "contentChanges": [{"range": {"start": pos(6, 9), "end": pos(6, 10)}, "text": "3"}]})
    note = client.wait_notification(lambda n: n["method"] == "textDocument/publishDiagnostics"
                                    and n["params"].get("version") == 5, start=mark)
    assert not any(d.get("code") == "no-match" for d in note["params"]["diagnostics"])
    hover = client.result("textDocument/hover", text_position(uri, 6, 6))
    assert "layer3" in hover["contents"]["value"]


def test_definition_points_into_python_source(ready_client):
    client, uri = ready_client
    locations = client.result("textDocument/definition", text_position(uri, 4, 8))
    assert locations
    # The user's model file, never PyTorch's own module code that the stack ends in.
    assert all(loc["uri"].startswith("file:///") and loc["uri"].endswith("resnet_model.py")
               and "/torch/" not in loc["uri"] for loc in locations), locations


def test_show_summary_and_status(ready_client):
    client, uri = ready_client
    status = [n["params"] for n in client.notifications if n["method"] == "opscope/status"]
    assert status[0]["state"] == "loading"
    assert status[-1]["state"] == "ready" and status[-1]["ops"] > 40
    assert status[-1]["model"] == "model.pt2"
    summary = client.result("workspace/executeCommand",
                            {"command": "opscope.showSummary", "arguments": [uri]})
    assert "layer1" in summary and "conv2d" in summary


def test_config_mid_edit_still_gets_completion(ready_client):
    client, uri = ready_client
    # An unterminated quote and a missing colon above the cursor.
    text = ("quantization_config:\n  module_name_configs:\n    \"layer1\\\\..*\n"
            "    layer2 \n    \"lay")
    client.change(uri, 2, text)
    completion = client.result("textDocument/completion", text_position(uri, 4, 8))
    assert "layer1.0.conv1" in labels(completion)


def test_completion_list_is_capped_with_is_incomplete(ready_client):
    client, uri = ready_client
    text = "quantization_config:\n  global_config:\n    op_name_config:\n      \n"
    client.change(uri, 2, text)
    completion = client.result("textDocument/completion", text_position(uri, 3, 6))
    assert completion["items"]
    assert len(completion["items"]) <= 100


def test_reload_model_command_rebuilds(ready_client):
    client, uri = ready_client
    mark = client.mark()
    assert client.result("workspace/executeCommand",
                         {"command": "opscope.reloadModel", "arguments": [uri]}) is None
    client.wait_notification(lambda n: n["method"] == "opscope/status"
                             and n["params"]["state"] == "loading", start=mark)
    client.wait_notification(lambda n: n["method"] == "opscope/status"
                             and n["params"]["state"] == "ready", start=mark)
    reply = client.request("workspace/executeCommand", {"command": "opscope.nope"})
    assert reply["error"]["code"] == -32602


def test_summary_of_a_config_that_is_not_open(ready_client, archive_project):
    client, _ = ready_client
    other = archive_project.parent / "other.yaml"
    other.write_text("quantization_config:\n  global_config: {}\n")
    summary = client.result("workspace/executeCommand", {
        "command": "opscope.showSummary", "arguments": [other.as_uri()]})
    assert "layer4" in summary
