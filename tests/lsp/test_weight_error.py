"""The per-layer weight error in the editor (issue 28): on a model exported with its weights,
the code lens on the root key names the three worst weights and hover on an entry the worst and
the median weight it decides, the same numbers `opscope explain --json` reports for the same
config (explain's are held to coreai-opt's prepare() by ctest fidelity_weight_error). They are
measured in the background after the config opens, the lenses are refreshed when they arrive,
and an edit that changes an entry's spec measures again. A weightless archive shows no lens and
one hover line saying so."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from conftest import SOURCE_DIR, text_position

EXAMPLE = SOURCE_DIR / "examples" / "resnet"
LAYER1_KEY = "'layer1\\..*':"
# The layer1 entry, made int4: its convolutions become the three worst.
INT4_LAYER1 = """    'layer1\\..*':
      op_state_spec:
        weight: { dtype: int4, granularity: { type: per_channel } }
"""
CAPABILITIES = {"workspace": {"codeLens": {"refreshSupport": True}},
                "textDocument": {"codeLens": {}, "hover": {}}}


def export(folder: Path, opscope_bin, python_exe, with_weights: bool) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(EXAMPLE / "model.py", folder / "model.py")
    args = [str(opscope_bin), "export", "model.py:build", "--input", "1x3x64x64",
            "-o", "model.pt2", "--python", python_exe]
    run = subprocess.run(args + (["--with-weights"] if with_weights else []), cwd=folder,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    (folder / "opscope.yaml").write_text("model: model.pt2\nmode: graph\ncompressor: quantizer\n")
    shutil.copy(EXAMPLE / "quant.yaml", folder / "quant.yaml")
    return folder / "quant.yaml"


@pytest.fixture(scope="module")
def weighted(tmp_path_factory, opscope_bin, python_exe) -> Path:
    return export(tmp_path_factory.mktemp("weighted"), opscope_bin, python_exe, True)


def explained(opscope_bin, config: Path, text: str) -> dict:
    """explain --json's weight_error of `text` as the config, with its rows by parameter."""
    edited = config.with_name("explained.yaml")
    edited.write_text(text)
    run = subprocess.run([str(opscope_bin), "explain", str(edited), "--model",
                          str(config.with_name("model.pt2")), "--json", "--quiet"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)["weight_error"]
    assert "unavailable" not in report, report
    report["by_name"] = {r["parameter"]: r for r in report["parameters"]}
    return report


def weight_lens(client, uri, predicate=lambda title: True, timeout=60.0):
    """The weight-error lens's title once `predicate` holds (asked again until then)."""
    deadline = time.monotonic() + timeout
    while True:
        lenses = client.result("textDocument/codeLens", {"textDocument": {"uri": uri}})
        titles = [lens["command"]["title"] for lens in lenses
                  if lens["command"]["title"].startswith("weight error")]
        if titles and predicate(titles[0]):
            return titles[0]
        assert time.monotonic() < deadline, f"no such weight-error lens; lenses: {lenses}"
        time.sleep(0.1)


def hover_text(client, uri, line: int, predicate, timeout=30.0) -> str:
    deadline = time.monotonic() + timeout
    while True:
        result = client.result("textDocument/hover", text_position(uri, line, 6))
        text = result["contents"]["value"] if result else ""
        if predicate(text):
            return text
        assert time.monotonic() < deadline, f"hover never matched: {text}"
        time.sleep(0.1)


def expected_lens(report: dict) -> str:
    worst = [f"{name} {report['by_name'][name]['sqnr_db']:.2f} dB" for name in report["worst"]]
    return "weight error, worst: " + ", ".join(worst) + " SQNR"


def expected_entry(report: dict, prefix: str) -> tuple[dict, dict]:
    """The worst and the median weight an entry matching modules `prefix...` decides."""
    rows = sorted((r for r in report["parameters"] if r["parameter"].startswith(prefix)),
                  key=lambda r: r["sqnr_db"])
    assert len(rows) == 4, rows  # layer1.0 and layer1.1, two convolutions each
    return rows[0], rows[(len(rows) - 1) // 2]


def entry_line(text: str) -> int:
    return next(i for i, line in enumerate(text.splitlines()) if line.strip() == LAYER1_KEY)


def test_lens_and_hover_agree_with_explain_and_follow_an_edit(make_client, weighted,
                                                              opscope_bin):
    text = weighted.read_text()
    client = make_client()
    client.initialize(weighted.parent, capabilities=CAPABILITIES)
    opened = time.monotonic()
    uri = client.open(weighted)

    lens = weight_lens(client, uri, lambda t: "computing" not in t and "updating" not in t,
                       timeout=120)
    print(f"weight-error lens {time.monotonic() - opened:.2f} s after opening: {lens}")
    report = explained(opscope_bin, weighted, text)
    assert lens == expected_lens(report)
    assert any(r["method"] == "workspace/codeLens/refresh" for r in client.server_requests)

    worst, median = expected_entry(report, "layer1.")
    hover = hover_text(client, uri, entry_line(text), lambda t: "worst `" in t)
    assert (f"worst `{worst['parameter']}` {worst['sqnr_db']:.2f} dB SQNR, relative error "
            f"{worst['relative_error']:.5f}") in hover, hover
    assert (f"median `{median['parameter']}` {median['sqnr_db']:.2f} dB, "
            f"{median['relative_error']:.5f}") in hover, hover
    print(hover)

    # The layer1 entry at int4: its convolutions lose the most now.
    lines = text.splitlines(keepends=True)
    at = entry_line(text)
    edited = "".join(lines[:at]) + INT4_LAYER1 + "".join(lines[at + 3:])
    assert "int4" in edited and edited.count(LAYER1_KEY) == 1
    client.change(uri, 2, edited)
    after = explained(opscope_bin, weighted, edited)
    assert after["worst"] != report["worst"]
    assert all(name.startswith("layer1.") for name in after["worst"])
    lens = weight_lens(client, uri, lambda t: t == expected_lens(after), timeout=120)
    worst, median = expected_entry(after, "layer1.")
    hover = hover_text(client, uri, entry_line(edited),
                       lambda t: f"worst `{worst['parameter']}` {worst['sqnr_db']:.2f} dB" in t)
    assert f"median `{median['parameter']}` {median['sqnr_db']:.2f} dB" in hover, hover
    assert client.shutdown_and_exit() == 0


def test_weightless_archive_shows_no_lens_and_says_so_once(make_client, tmp_path, opscope_bin,
                                                           python_exe):
    config = export(tmp_path / "weightless", opscope_bin, python_exe, False)
    text = config.read_text()
    client = make_client()
    client.initialize(config.parent, capabilities=CAPABILITIES)
    uri = client.open(config)
    hover = hover_text(client, uri, entry_line(text),
                       lambda t: "Weight error" in t and "computing" not in t, timeout=120)
    assert hover.count("Weight error") == 1
    assert "**Weight error**: not measured: no weights in this archive" in hover, hover
    lenses = client.result("textDocument/codeLens", {"textDocument": {"uri": uri}})
    titles = [lens["command"]["title"] for lens in lenses]
    assert any(t.startswith("projected size") for t in titles), titles
    assert not any(t.startswith("weight error") for t in titles), titles
    assert client.shutdown_and_exit() == 0
