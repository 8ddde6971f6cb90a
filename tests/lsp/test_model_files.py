"""Model files that are damaged or hostile (issue 14): a bad index file, a FIFO, a damaged
cache entry, an export that writes nothing. Each is one clear message on the config, the
server keeps answering, and nothing 'ready' hides a failure."""

import json
import os
import shutil
import subprocess
import time

from conftest import QUANT_CONFIG, text_position, write_project
from test_workers import wait_status


def answers(client, uri):
    """The server still answers a request after the failure."""
    completion = client.result("textDocument/completion", text_position(uri, 6, 6), timeout=10)
    assert "items" in completion


def test_malformed_index_file_fails_the_config_not_the_server(make_client, tmp_path,
                                                              resnet_archive, opscope_bin):
    index_file = tmp_path / "g.json"
    subprocess.run([str(opscope_bin), "index", str(resnet_archive), "-o", str(index_file),
                    "--quiet"], check=True, timeout=300)
    data = json.loads(index_file.read_text())
    data["modules"][1]["ops"] = [-1, 1000000000]
    index_file.write_text(json.dumps(data))
    config = write_project(tmp_path, "model: g.json\n")
    client = make_client()
    client.initialize(tmp_path)
    uri = client.open(config)
    failed = wait_status(client, "failed", timeout=60)
    message = failed["params"]["message"]
    assert f"{index_file}: corrupt index file (module 1 " in message, message
    assert "re-create it with `opscope index" in message
    diagnostics = client.diagnostics(uri, lambda d: any("corrupt index" in x["message"] for x in d))
    assert diagnostics[0]["severity"] == 1
    answers(client, uri)
    assert client.shutdown_and_exit() == 0


def test_fifo_model_and_project_file_do_not_hang_the_server(make_client, tmp_path):
    os.mkfifo(tmp_path / "model.pt2")
    config = write_project(tmp_path, "model: model.pt2\n")
    client = make_client()
    client.initialize(tmp_path)
    uri = client.open(config)
    failed = wait_status(client, "failed", timeout=30)
    assert "is a named pipe (FIFO), not a regular file" in failed["params"]["message"]
    answers(client, uri)
    assert client.shutdown_and_exit() == 0

    # The project file itself a FIFO: a problem on the config, and the server answers.
    other = tmp_path / "other"
    other.mkdir()
    os.mkfifo(other / "opscope.yaml")
    (other / "quant.yaml").write_text(QUANT_CONFIG)
    client = make_client()
    client.initialize(other)
    uri = client.open(other / "quant.yaml")
    diagnostics = client.diagnostics(
        uri, lambda d: any("named pipe" in x["message"] for x in d), timeout=30)
    assert diagnostics
    answers(client, uri)
    assert client.shutdown_and_exit() == 0


def test_damaged_cache_entry_is_rebuilt_at_the_next_start(make_client, tmp_path, resnet_archive):
    shutil.copy(resnet_archive, tmp_path / "model.pt2")
    config = write_project(tmp_path, "model: model.pt2\n")
    client = make_client()
    client.initialize(tmp_path)
    client.open(config)
    wait_status(client, "ready")
    assert client.shutdown_and_exit() == 0

    [entry] = (tmp_path / "cache" / "opscope" / "index").glob("*-graph.json")
    data = json.loads(entry.read_text())
    data["modules"][1]["ops"] = [-1, 1000000000]
    entry.write_text(json.dumps(data))
    for _ in range(2):  # every start used to die on it
        client = make_client()
        client.initialize(tmp_path)
        uri = client.open(config)
        ready = wait_status(client, "ready")
        assert ready["params"]["state"] == "ready"
        answers(client, uri)
        assert client.shutdown_and_exit() == 0
        if _ == 0:
            log = "\n".join(client.stderr_lines)
            assert f"the cached index {entry} is damaged" in log and "rebuilding it" in log, log
    # Cut short: rebuilt too.
    entry.write_text(entry.read_text()[:200])
    client = make_client()
    client.initialize(tmp_path)
    client.open(config)
    wait_status(client, "ready")
    assert client.shutdown_and_exit() == 0


def test_export_that_writes_nothing_is_failed_not_ready(make_client, tmp_path, python_exe,
                                                        resnet_archive, trust_project):
    model = tmp_path / "exits.py"
    source = ("import torch\n{exit}\n\nclass M(torch.nn.Module):\n"
              "    def __init__(self):\n        super().__init__()\n"
              "        self.fc = torch.nn.Linear(4, 2)\n\n"
              "    def forward(self, x):\n        return self.fc(x)\n\n"
              "def build():\n    return M()\n")
    model.write_text(source.format(exit=""))
    config = write_project(tmp_path, "model: exits.py:build\ninputs:\n  - 1x4\n"
                                     f"python: {python_exe}\nmode: graph\n")
    trust_project(tmp_path / "opscope.yaml")  # the export runs the project's code
    client = make_client()
    client.initialize(tmp_path)
    uri = client.open(config)
    wait_status(client, "ready", timeout=300)
    # The model now exits at import: the rebuild must fail, not keep the old model as "ready".
    mark = client.mark()
    time.sleep(1.1)  # a new modification time for the poll
    model.write_text(source.format(exit="import os; os._exit(0)"))
    failed = wait_status(client, "failed", start=mark, timeout=300)
    message = failed["params"]["message"]
    assert "exited (code 0) without writing" in message, message
    answers(client, uri)
    assert client.shutdown_and_exit() == 0
