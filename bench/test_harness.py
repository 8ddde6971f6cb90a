"""Smoke tests of the harness's pure-Python parts (no torch, no servers, a second or so):
  .venv/bin/python -m pytest bench/test_harness.py
The benchmarks themselves are not tests (issue #6); these guard what would silently skew
their figures: framing, percentiles, peak-RSS measurement, the generated documents, ratios
and verdicts."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from configs import json_schema, quantizer_config  # noqa: E402
from lsp_client import FrameReader, encode  # noqa: E402
from measure import BenchError, percentile, run_measured  # noqa: E402
from results import Figure, Row, format_table  # noqa: E402
from targets import evaluate  # noqa: E402

GPT_NAMES = {
    "module_names": [f"h.{i}{leaf}" for i in range(12)
                     for leaf in ("", ".attn", ".attn.qkv", ".attn.proj", ".mlp", ".mlp.fc")],
    "module_types": ["GPT.Block", "torch.nn.modules.linear.Linear"],
    "op_names": [f"linear_{i}" for i in range(48)] + ["add", "add_1"],
    "op_types": ["add", "linear"],
}
TINY_NAMES = {"module_names": ["linear1", "relu", "linear2"],
              "module_types": ["torch.nn.modules.linear.Linear"],
              "op_names": ["linear", "linear_1"], "op_types": ["linear"]}


def test_frames_split_across_reads_and_batched_in_one():
    reader = FrameReader()
    data = encode({"id": 1}) + encode({"method": "x"})
    assert reader.feed(data[:7]) == []
    bodies = reader.feed(data[7:])
    assert [json.loads(b) for b in bodies] == [{"id": 1}, {"method": "x"}]


def test_nearest_rank_percentiles():
    values = list(range(1, 201))  # 1..200
    assert percentile(values, 50) == 100
    assert percentile(values, 99) == 198
    assert percentile([5.0], 99) == 5.0


def test_peak_rss_is_the_commands_own_not_the_harness():
    ballast = bytearray(200 * 1024 * 1024)  # a fat harness must not show in the child
    ballast[::4096] = b"x" * len(ballast[::4096])
    run = run_measured(["/bin/true"])
    assert run.returncode == 0 and run.peak_rss_kb < 50 * 1024
    with pytest.raises(BenchError):
        run_measured(["/bin/false"])


@pytest.mark.parametrize("names", [GPT_NAMES, TINY_NAMES], ids=["gpt", "tiny"])
def test_config_has_exactly_100_unique_patterns_and_valid_positions(names):
    doc = quantizer_config(names)
    assert doc.pattern_count == 100
    config = yaml.safe_load(doc.text)["quantization_config"]
    nested = sum(len(v.get(k) or {}) for v in config["module_name_configs"].values() if v
                 for k in ("op_type_config", "op_name_config"))
    total = (len(config["module_name_configs"]) + nested + len(config["module_type_configs"])
             + len(config["global_config"]["op_type_config"])
             + len(config["global_config"]["op_name_config"]))
    assert total == 100  # YAML would have merged duplicate keys
    typed = doc.completion_text.splitlines()[doc.completion_position["line"]]
    assert typed.strip() == doc.completion_prefix
    assert len(typed) == doc.completion_position["character"]
    hover_line = doc.text.splitlines()[doc.hover_position["line"]]
    assert hover_line.strip().startswith(doc.hover_key + ":")
    assert doc.hover_key in names["module_names"]


def test_schema_enumerates_the_same_names():
    schema = json_schema(GPT_NAMES)["properties"]["quantization_config"]["properties"]
    assert list(schema["module_name_configs"]["properties"]) == GPT_NAMES["module_names"]
    assert schema["module_name_configs"]["additionalProperties"] is False


def _row(model, metric, ours, peer, unit="ms"):
    return Row(model, {}, metric, unit, ours, "peer", peer)


def test_ratio_is_peer_over_opscope_and_verdicts_follow_it():
    fast = Figure({"p50": 0.2, "p99": 0.5}, 100)
    slow = Figure({"p50": 20.0, "p99": 30.0}, 100)
    rows = [_row("GPT-96", "(d) completion, 100-pattern config", fast, slow),
            _row("GPT-96", "(d) hover, 100-pattern config", slow, fast)]
    assert rows[0].ratio == {"p50": 100.0, "p99": 60.0}
    verdicts = {(v["target"], v["model"]): v["verdict"] for v in evaluate(rows)}
    assert verdicts[("completion p99 <= 1 ms", "GPT-96")] == "met"
    assert verdicts[("hover p99 <= 1 ms", "GPT-96")] == "NOT met"
    assert verdicts[("completion p99 <= 5 ms", "GPT-384")] == "n/a"
    assert "n/a (not built)" in format_table([_row("M", "x", "n/a (not built)", None)])
