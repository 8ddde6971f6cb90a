"""Workers that crash, fail or hang are messages and diagnostics, never a dead
server; the last good index keeps serving; completion answers while loading."""

import os
import shutil
import stat
import textwrap

import pytest

from conftest import QUANT_CONFIG, text_position, write_project


def fake_worker(folder, body):
    """An executable standing in for `opscope` as the server's worker."""
    path = folder / "fake-opscope"
    path.write_text("#!/bin/sh\n" + textwrap.dedent(body))
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def wait_status(client, state, start=0, timeout=120):
    return client.wait_notification(lambda n: n["method"] == "opscope/status"
                                    and n["params"]["state"] == state, timeout, start)


def test_crashing_worker_is_a_diagnostic_not_a_dead_server(make_client, tmp_path):
    (tmp_path / "model.pt2").write_bytes(b"not really")
    config = write_project(tmp_path, "model: model.pt2\n")
    worker = fake_worker(tmp_path, "echo 'segfaulting on purpose' >&2\nkill -SEGV $$\n")
    client = make_client(env={"OPSCOPE_LSP_WORKER": str(worker)})
    client.initialize(tmp_path, {"window": {"workDoneProgress": True}})
    uri = client.open(config)
    failed = wait_status(client, "failed")
    assert "crashed" in failed["params"]["message"]
    diagnostics = client.diagnostics(uri, lambda d: any("crashed" in x["message"] for x in d))
    top = [d for d in diagnostics if "crashed" in d["message"]][0]
    assert top["range"]["start"] == {"line": 0, "character": 0}
    assert top["severity"] == 1  # no index at all yet
    assert "model.pt2" in top["message"]
    # The progress ends with the failure.
    end = client.wait_notification(lambda n: n["method"] == "$/progress"
                                   and n["params"]["value"]["kind"] == "end")
    assert "failed" in end["params"]["value"]["message"]
    completion = client.result("textDocument/completion", text_position(uri, 6, 6))
    assert completion["items"] == []
    assert client.shutdown_and_exit() == 0


def test_hung_worker_is_stopped_by_the_timeout(make_client, tmp_path):
    (tmp_path / "model.pt2").write_bytes(b"x")
    config = write_project(tmp_path, "model: model.pt2\n")
    worker = fake_worker(tmp_path, "sleep 600\n")
    client = make_client(env={"OPSCOPE_LSP_WORKER": str(worker),
                              "OPSCOPE_LSP_TIMEOUT_MS": "1500"})
    client.initialize(tmp_path)
    uri = client.open(config)
    # While it hangs, requests are answered at once: an empty, incomplete completion.
    wait_status(client, "loading")
    completion = client.result("textDocument/completion", text_position(uri, 6, 6), timeout=5)
    assert completion == {"isIncomplete": True, "items": []}
    failed = wait_status(client, "failed", timeout=30)
    assert "did not finish in time" in failed["params"]["message"]
    assert client.shutdown_and_exit() == 0


def test_last_good_index_keeps_serving_after_a_failed_rebuild(make_client, tmp_path,
                                                              resnet_archive, opscope_bin):
    shutil.copy(resnet_archive, tmp_path / "model.pt2")
    config = write_project(tmp_path, "model: model.pt2\n")
    marker = tmp_path / "break-worker"
    worker = fake_worker(tmp_path, f"""\
        if [ -e '{marker}' ]; then echo "model.pt2: the archive is broken; re-export it" >&2; exit 1; fi
        exec '{opscope_bin}' "$@"
        """)
    client = make_client(env={"OPSCOPE_LSP_WORKER": str(worker)})
    client.initialize(tmp_path)
    uri = client.open(config)
    wait_status(client, "ready")
    marker.write_text("")
    mark = client.mark()
    # The archive changes (a new export): the poll notices and rebuilds, which fails.
    with open(tmp_path / "model.pt2", "ab") as archive:
        archive.write(b"\0")
    failed = wait_status(client, "failed", start=mark)
    assert "re-export it" in failed["params"]["message"]
    diagnostics = client.diagnostics(
        uri, lambda d: any("last good index" in x["message"] for x in d), start=mark)
    top = [d for d in diagnostics if "last good index" in d["message"]][0]
    assert top["severity"] == 2
    # Pattern diagnostics still come from the old index.
    assert any(d.get("code") == "no-match" for d in diagnostics)
    text = QUANT_CONFIG + "    \n"
    client.change(uri, 2, text)
    completion = client.result("textDocument/completion",
                               text_position(uri, len(text.splitlines()) - 1, 4))
    assert "layer1.0.conv1" in {item["label"] for item in completion["items"]}
    assert client.shutdown_and_exit() == 0


def test_export_runs_only_for_a_named_target(make_client, tmp_path):
    """A config with no project file gets a 'no model' diagnostic; nothing is run."""
    config = tmp_path / "quant.yaml"
    config.write_text(QUANT_CONFIG)
    worker = fake_worker(tmp_path, f"touch '{tmp_path}/worker-ran'\nexit 1\n")
    client = make_client(env={"OPSCOPE_LSP_WORKER": str(worker)})
    client.initialize(tmp_path)
    uri = client.open(config)
    diagnostics = client.diagnostics(uri, lambda d: any("opscope.yaml" in x["message"] for x in d))
    assert diagnostics[0]["range"]["start"]["line"] == 0
    assert not (tmp_path / "worker-ran").exists()
    assert client.shutdown_and_exit() == 0
