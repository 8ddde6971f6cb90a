"""`prepare-raises` against coreai-opt's own prepare(): an eager Quantizer config whose weight
granularity needs an axis (per_channel, per_block with one block size) that coreai-opt has no
default for on some module the config reaches (a norm's weight: LlamaRMSNorm, LayerNorm, ...)
is accepted by from_dict, then prepare() raises ValueError (quantization/_axis_defaults.py).
`opscope check` must report it exactly then, on the entry whose spec it is, naming as many
weights as coreai-opt's error does."""

from __future__ import annotations

import contextlib
import copy
import io
import json
import logging
import re
import subprocess

import pytest

from conftest import build_fixture_model

PER_CHANNEL = {"type": "per_channel"}


def spec(granularity: dict, dtype: str = "int8") -> dict:
    return {"dtype": dtype, "granularity": granularity}


def weights_only(weight) -> dict:
    return {"op_input_spec": None, "op_output_spec": None, "op_state_spec": {"weight": weight}}


def config(global_weight, types=None) -> dict:
    root = {"execution_mode": "eager", "global_config": weights_only(global_weight)}
    if types:
        root["module_type_configs"] = types
    return {"quantization_config": root}


RMS_NORM = "transformers.models.llama.modeling_llama.LlamaRMSNorm"
LAYER_NORM = "torch.nn.modules.normalization.LayerNorm"

CASES = [
    # (fixture, label, config)
    ("hf_llama", "per_channel_without_axis", config(spec(PER_CHANNEL, "int4"))),
    ("hf_llama", "per_channel_axis_0", config(spec({"type": "per_channel", "axis": 0}))),
    ("hf_llama", "norms_left_out", config(spec(PER_CHANNEL), {RMS_NORM: None})),
    ("hf_llama", "per_block_without_axis", config(spec({"type": "per_block", "block_size": 16}))),
    ("hf_llama", "per_tensor", config(spec({"type": "per_tensor"}))),
    ("hf_bert", "per_channel_without_axis", config(spec(PER_CHANNEL))),
    ("hf_bert", "layer_norms_left_out", config(spec(PER_CHANNEL), {LAYER_NORM: None})),
    ("resnet18", "per_channel_without_axis", config(spec(PER_CHANNEL))),
]


@pytest.fixture(scope="module")
def eager_index(fixture_archive, inspect_worker, tmp_path_factory):
    outdir = tmp_path_factory.mktemp("prepare_raises")
    cache: dict[str, str] = {}

    def get(name: str) -> str:
        if name not in cache:
            path = str(outdir / f"{name}.eager.json")
            proc = subprocess.run([inspect_worker, fixture_archive(name), "--mode", "eager",
                                   "-o", path], capture_output=True, text=True, timeout=300)
            assert proc.returncode == 0, proc.stderr
            cache[name] = path
        return cache[name]

    return get


def coreai_prepare_error(name: str, cfg: dict) -> str | None:
    """coreai-opt's ValueError text when prepare() raises on the axis defaults, else None."""
    from coreai_opt.quantization import Quantizer, QuantizerConfig

    model, args = build_fixture_model(name)
    quantizer_config = QuantizerConfig.from_dict(copy.deepcopy(cfg))  # accepted: must not raise
    logging.disable(logging.WARNING)
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            Quantizer(model, quantizer_config).prepare(args)
        return None
    except ValueError as exc:
        assert "axis" in str(exc), f"prepare() raised something else: {exc}"
        return str(exc)
    finally:
        logging.disable(logging.NOTSET)


@pytest.mark.parametrize("name,label,cfg", CASES, ids=[f"{n}-{l}" for n, l, _ in CASES])
def test_check_reports_prepare_raises_exactly_when_prepare_does(name, label, cfg, eager_index,
                                                                opscope_bin, tmp_path,
                                                                coreai_opt):
    path = tmp_path / f"{label}.json"
    path.write_text(json.dumps(cfg, indent=2))
    proc = subprocess.run([opscope_bin, "check", str(path), "--model", eager_index(name),
                           "--mode", "eager", "--format", "json"],
                          capture_output=True, text=True, timeout=120)
    diagnostics = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    raises = [d for d in diagnostics if d["code"] == "prepare-raises"]
    error = coreai_prepare_error(name, cfg)
    print(f"\n{name}/{label}: coreai-opt prepare() {'raises' if error else 'runs'}; opscope "
          f"{'reports prepare-raises' if raises else 'reports nothing'}")
    if error is None:
        assert raises == [], raises
        return
    assert len(raises) == 1, diagnostics
    assert raises[0]["severity"] == "error"
    assert proc.returncode == 1
    # On the global entry (the only one whose spec has no axis here), at its key.
    lines = path.read_text().splitlines()
    global_line = next(i for i, l in enumerate(lines) if '"global_config"' in l) + 1
    assert raises[0]["range"]["start"][0] == global_line, raises[0]
    # As many weights as coreai-opt names (its list: the fake-quantized modules).
    named = re.search(r"after applying defaults: (.*?)\. The ops", error).group(1).split(", ")
    counted = int(re.search(r"and (\d+) weights? it reaches", raises[0]["message"]).group(1))
    assert counted == len(named), (raises[0]["message"], named)
