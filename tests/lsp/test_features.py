"""What needs a real archive: the model's status as it is exported and indexed, the summary
command on it, and rebuilding it on request. Completion, hover, diagnostics, quick fixes and
go-to-definition against the same model are transcripts (transcripts/*.lsp, lsp_transcripts)
replayed against a committed index of it."""

import shutil

import pytest

from conftest import write_project


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


def test_show_summary_and_status(ready_client):
    client, uri = ready_client
    status = [n["params"] for n in client.notifications if n["method"] == "opscope/status"]
    assert status[0]["state"] == "loading"
    assert status[-1]["state"] == "ready" and status[-1]["ops"] > 40
    assert status[-1]["model"] == "model.pt2"
    summary = client.result("workspace/executeCommand",
                            {"command": "opscope.showSummary", "arguments": [uri]})
    assert "layer1" in summary and "conv2d" in summary


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
