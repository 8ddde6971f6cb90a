"""A Python target: the server exports it with `opscope export` in a child
process, and renaming a submodule in the model's source updates completion and
diagnostics of an open config without restarting anything."""

import shutil

import pytest

from conftest import RESNET_SOURCE, text_position, write_project

CONFIG = """quantization_config:
  module_name_configs:
    fc:
      op_state_spec: {}
"""


@pytest.fixture
def target_project(tmp_path, python_exe, resnet_archive, trust_project):  # needs the worker
    shutil.copy(RESNET_SOURCE, tmp_path / "resnet_model.py")
    config = write_project(
        tmp_path,
        "model: resnet_model.py:resnet18\n"
        "inputs:\n  - 1x3x64x64\n"
        f"python: {python_exe}\n"
        "mode: graph\n",
        CONFIG)
    trust_project(tmp_path / "opscope.yaml")
    return config


def module_labels(client, uri, line, character):
    completion = client.result("textDocument/completion", text_position(uri, line, character))
    return {item["label"]: item.get("detail") for item in completion["items"]}


def test_renaming_a_submodule_updates_completion_and_diagnostics(make_client, target_project):
    client = make_client()
    client.initialize(target_project.parent.parent)
    uri = client.open(target_project)
    ready = client.wait_notification(lambda n: n["method"] == "opscope/status"
                                     and n["params"]["state"] in ("ready", "failed"),
                                     timeout=240)
    assert ready["params"]["state"] == "ready", ready
    diagnostics = client.diagnostics(uri, lambda d: True)
    assert not any(d.get("code") == "no-match" for d in diagnostics)
    text = CONFIG + "    \n"
    client.change(uri, 2, text)
    names = module_labels(client, uri, 4, 4)
    assert names.get("layer1.0.conv1") == "torch.nn.modules.conv.Conv2d"
    assert "fc" in names and "classifier" not in names

    # Rename self.fc -> self.classifier in the model's source.
    source = target_project.parent.parent / "resnet_model.py"
    code = source.read_text()
    assert "self.fc" in code
    source.write_text(code.replace("self.fc", "self.classifier"))
    mark = client.mark()
    client.wait_notification(lambda n: n["method"] == "opscope/status"
                             and n["params"]["state"] == "ready", timeout=240, start=mark)
    names = module_labels(client, uri, 4, 4)
    assert "classifier" in names and "fc" not in names
    diagnostics = client.diagnostics(
        uri, lambda d: any(x.get("code") == "no-match" for x in d), start=mark)
    (warning,) = [d for d in diagnostics if d.get("code") == "no-match"]
    assert warning["range"]["start"]["line"] == 2
    assert client.shutdown_and_exit() == 0


def test_python_target_done_when_items(make_client, tmp_path, python_exe, resnet_archive,
                                       trust_project):
    """Completion, hover, no-match and op types, with the model as a Python target."""
    from conftest import QUANT_CONFIG
    shutil.copy(RESNET_SOURCE, tmp_path / "resnet_model.py")
    config = write_project(
        tmp_path,
        f"model: resnet_model.py:resnet18\ninputs: [1x3x64x64]\npython: {python_exe}\n")
    trust_project(tmp_path / "opscope.yaml")
    client = make_client()
    client.initialize(tmp_path, {"window": {"workDoneProgress": True}})
    uri = client.open(config)
    ready = client.wait_notification(lambda n: n["method"] == "opscope/status"
                                     and n["params"]["state"] in ("ready", "failed"),
                                     timeout=240)
    assert ready["params"]["state"] == "ready", ready
    # Exporting, then indexing: one progress, reported step by step.
    steps = [n["params"]["message"] for n in client.notifications
             if n["method"] == "opscope/status"]
    assert steps[0].startswith("exporting") and any(s.startswith("indexing") for s in steps)
    diagnostics = client.diagnostics(uri, lambda d: any(x.get("code") == "no-match" for x in d))
    (warning,) = [d for d in diagnostics if d.get("code") == "no-match"]
    assert "layer9.*" in warning["message"] and "layer1" in warning["message"]
    hover = client.result("textDocument/hover", text_position(uri, 4, 8))
    assert "conv2d" in hover["contents"]["value"]
    text = QUANT_CONFIG + "    \n"
    client.change(uri, 2, text)
    names = module_labels(client, uri, len(text.splitlines()) - 1, 4)
    assert names.get("layer1.0.conv1") == "torch.nn.modules.conv.Conv2d"
    client.change(uri, 3, "quantization_config:\n  global_config:\n    op_type_config:\n      \n")
    types = module_labels(client, uri, 3, 6)
    assert "conv2d" in types and "linear" in types and "relu" not in types
    assert client.shutdown_and_exit() == 0
