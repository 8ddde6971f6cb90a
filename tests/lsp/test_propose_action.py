"""`opscope propose` as a code action (issue 28): on a Quantizer config whose model was exported
with its weights, once the weights are measured the server offers "opscope: propose a config
for B bits per weight" (kind refactor.rewrite) on the root key's line. Applying its edit gives
exactly the text `opscope propose CONFIG --model M --bits-per-weight B --write` writes (the
command's proposal is held to coreai-opt's prepare() by ctest fidelity_propose), and the edit
carries a change annotation with needsConfirmation, so VS Code shows it as a diff before it is
applied; a client without change annotations gets the same edit, plain. Nothing is measured
until the actions are first asked for (then a disabled action says they are being measured).
A weightless archive offers nothing; with `weights:` naming a .safetensors checkpoint of the
same weights, the proposal is the same. Prints how long after opening the actions were offered."""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from test_weight_error import export, weight_lens

CONFIRMING = {"workspace": {"codeLens": {"refreshSupport": True},
                            "workspaceEdit": {"documentChanges": True,
                                              "changeAnnotationSupport": {"groupsOnLabel": True}}},
              "textDocument": {"codeLens": {}, "codeAction": {"disabledSupport": True}}}
PLAIN = {"workspace": {"codeLens": {"refreshSupport": True}},
         "textDocument": {"codeLens": {}, "codeAction": {}}}
BUDGET = "4.5"


@pytest.fixture(scope="module")
def weighted(tmp_path_factory, opscope_bin, python_exe) -> Path:
    return export(tmp_path_factory.mktemp("weighted"), opscope_bin, python_exe, True)


def root_line(text: str) -> int:
    return next(i for i, line in enumerate(text.splitlines())
                if line.startswith("quantization_config:"))


def code_actions(client, uri, line: int, context: dict | None = None) -> list[dict]:
    return client.result("textDocument/codeAction", {
        "textDocument": {"uri": uri},
        "range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}},
        "context": context if context is not None else {"diagnostics": []}})


def proposals(client, uri, line: int, timeout=120.0) -> list[dict]:
    """The propose actions on `line`, once offered (asked again until then)."""
    deadline = time.monotonic() + timeout
    while True:
        found = [a for a in code_actions(client, uri, line)
                 if a["title"].startswith("opscope: propose") and "disabled" not in a]
        if found:
            return found
        assert time.monotonic() < deadline, "no propose action was offered"
        time.sleep(0.1)


def applied(text: str, edits: list[dict]) -> str:
    """`edits` applied to `text` (ASCII: characters are bytes), last first."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(position: dict) -> int:
        if position["line"] >= len(lines):
            return len(text)
        return starts[position["line"]] + position["character"]

    for edit in sorted(edits, key=lambda e: offset(e["range"]["start"]), reverse=True):
        text = (text[:offset(edit["range"]["start"])] + edit["newText"]
                + text[offset(edit["range"]["end"]):])
    return text


def proposed_by_cli(opscope_bin, config: Path, budget: str) -> tuple[str, str]:
    """What `opscope propose --write` writes to a copy of `config`, and its summary line."""
    copy = config.with_name("proposed_by_cli.yaml")
    shutil.copy(config, copy)
    run = subprocess.run([str(opscope_bin), "propose", str(copy), "--model",
                          str(config.with_name("model.pt2")), "--bits-per-weight", budget,
                          "--write", "--quiet"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    summary = next(line for line in run.stdout.splitlines() if line.startswith("proposed: "))
    return copy.read_text(), summary


def test_propose_action_applies_what_the_command_writes_after_a_confirmation(
        make_client, weighted, opscope_bin):
    text = weighted.read_text()
    client = make_client()
    init = client.initialize(weighted.parent, capabilities=CONFIRMING)
    assert "refactor.rewrite" in init["capabilities"]["codeActionProvider"]["codeActionKinds"]
    opened = time.monotonic()
    uri = client.open(weighted)
    weight_lens(client, uri, lambda t: "computing" not in t and "updating" not in t, timeout=120)
    # Proposed only once asked for: the first request starts it and hears that it is under way.
    first = [a for a in code_actions(client, uri, root_line(text))
             if a["kind"] == "refactor.rewrite"]
    assert [a["title"] for a in first] == ["opscope: propose a config for a size budget"], first
    assert "measuring" in first[0]["disabled"]["reason"] and "edit" not in first[0]
    found = proposals(client, uri, root_line(text))
    print(f"propose actions {time.monotonic() - opened:.2f} s after opening: "
          + "; ".join(a["title"] for a in found))
    assert all(a["kind"] == "refactor.rewrite" for a in found)

    action = next(a for a in found if f"for {BUDGET} bits per weight" in a["title"])
    expected, summary = proposed_by_cli(opscope_bin, weighted, BUDGET)
    assert expected != text
    edit = action["edit"]
    assert "changes" not in edit
    [change] = edit["documentChanges"]
    assert change["textDocument"] == {"uri": uri, "version": 1}
    assert applied(text, change["edits"]) == expected
    # Asks first: VS Code shows its refactor preview, a diff, before applying it.
    ids = {e["annotationId"] for e in change["edits"]}
    assert len(ids) == 1
    annotation = edit["changeAnnotations"][ids.pop()]
    assert annotation["needsConfirmation"] is True
    # The figures the command prints, in the annotation and (rounded) in the title.
    bits, megabytes, error = re.match(
        r"proposed: ([\d.]+) bits per weight, ([\d.]+ MB) \(budget [^)]*\); weight error (.*)$",
        summary).groups()
    assert annotation["description"].startswith(f"{bits} bits per weight, {megabytes} ")
    assert f"weight error {error}" in annotation["description"], annotation
    assert f"({float(bits):.2f} bits per weight, {megabytes}, weight SQNR" in action["title"]

    # Only quick fixes asked for: no proposal. Refactors asked for on another line: offered.
    assert not [a for a in code_actions(client, uri, root_line(text),
                                        {"diagnostics": [], "only": ["quickfix"]})
                if a["kind"] == "refactor.rewrite"]
    assert [a for a in code_actions(client, uri, len(text.splitlines()) - 1,
                                    {"diagnostics": [], "only": ["refactor"]})
            if a["title"] == action["title"]]

    # An edit that changes the config proposes again, from that text.
    edited = text.replace("    layer9.*: null\n", "")
    assert edited != text
    client.change(uri, 2, edited)
    weighted_edited = weighted.with_name("edited.yaml")
    weighted_edited.write_text(edited)
    expected_edited, _ = proposed_by_cli(opscope_bin, weighted_edited, BUDGET)
    deadline = time.monotonic() + 120
    while True:
        again = [a for a in code_actions(client, uri, root_line(edited))
                 if f"for {BUDGET} bits per weight" in a["title"]]
        if again and again[0]["edit"]["documentChanges"][0]["textDocument"]["version"] == 2:
            break
        assert time.monotonic() < deadline, "no proposal for the edited config"
        time.sleep(0.1)
    assert applied(edited, again[0]["edit"]["documentChanges"][0]["edits"]) == expected_edited
    assert client.shutdown_and_exit() == 0


def test_a_client_without_change_annotations_gets_the_same_edit_plain(make_client, weighted,
                                                                      opscope_bin):
    text = weighted.read_text()
    client = make_client()
    client.initialize(weighted.parent, capabilities=PLAIN)
    uri = client.open(weighted)
    found = proposals(client, uri, root_line(text))
    action = next(a for a in found if f"for {BUDGET} bits per weight" in a["title"])
    assert set(action["edit"]) == {"changes"}
    expected, _ = proposed_by_cli(opscope_bin, weighted, BUDGET)
    assert applied(text, action["edit"]["changes"][uri]) == expected
    assert client.shutdown_and_exit() == 0


def test_a_weightless_archive_offers_no_proposal(make_client, tmp_path, opscope_bin, python_exe):
    config = export(tmp_path / "weightless", opscope_bin, python_exe, False)
    text = config.read_text()
    client = make_client()
    client.initialize(config.parent, capabilities=CONFIRMING)
    uri = client.open(config)
    # The weight error says "no weights" on hover once measured; still no proposal after that.
    deadline = time.monotonic() + 120
    while True:
        hover = client.result("textDocument/hover", {
            "textDocument": {"uri": uri},
            "position": {"line": next(i for i, line in enumerate(text.splitlines())
                                      if line.strip() == "'layer1\\..*':"), "character": 6}})
        if hover and "no weights in this archive" in hover["contents"]["value"]:
            break
        assert time.monotonic() < deadline, f"the weight error never said so: {hover}"
        time.sleep(0.1)
    time.sleep(1.0)
    assert not [a for a in code_actions(client, uri, root_line(text))
                if a["kind"] == "refactor.rewrite"]
    assert client.shutdown_and_exit() == 0


def test_a_checkpoint_named_by_weights_gives_the_same_proposal(make_client, tmp_path, weighted,
                                                               opscope_bin, python_exe):
    """A weightless archive for the names and `weights:` naming a .safetensors checkpoint of the
    same weights (the lens's other source): the same proposal as the archive with weights."""
    config = export(tmp_path / "checkpoint", opscope_bin, python_exe, False)
    checkpoint = config.with_name("model.safetensors")
    subprocess.run([python_exe, "-c", (
        "import sys, torch\nfrom safetensors.torch import save_file\n"
        "state = torch.export.load(sys.argv[1]).state_dict\n"
        "save_file({k: v.contiguous() for k, v in state.items()}, sys.argv[2])\n"),
        str(weighted.with_name("model.pt2")), str(checkpoint)], check=True, timeout=300)
    config.with_name("opscope.yaml").write_text(
        "model: model.pt2\nweights: model.safetensors\nmode: graph\ncompressor: quantizer\n")
    text = config.read_text()
    assert text == weighted.read_text()
    client = make_client()
    client.initialize(config.parent, capabilities=CONFIRMING)
    uri = client.open(config)
    action = next(a for a in proposals(client, uri, root_line(text))
                  if f"for {BUDGET} bits per weight" in a["title"])
    expected, _ = proposed_by_cli(opscope_bin, weighted, BUDGET)
    assert applied(text, action["edit"]["documentChanges"][0]["edits"]) == expected
    assert client.shutdown_and_exit() == 0
