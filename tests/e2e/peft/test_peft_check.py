"""PEFT configs end to end: `opscope check` and `opscope explain` on a training script, a saved
adapter_config.json and axolotl YAML whose base model is a Hugging Face id in a private cache
(config.json only, as the hub lays it out; nothing downloaded, no opscope.yaml). PEFT itself is
the judge of what `explain` says: get_peft_model on the same architecture built on meta.
"""

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "python"))
from fixtures.hf_hub import TINY_LLAMA, TINY_LLAMA_ID as MODEL_ID  # noqa: E402
from fixtures.hub_project import diagnostics, make_hub_project, run_opscope as opscope  # noqa: E402
from fixtures.hub_project import write_project_file as write  # noqa: E402
from fixtures.peft_wraps import peft_wraps as wraps_in  # noqa: E402


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    return make_hub_project(tmp_path_factory.mktemp("peft"))


def test_a_misspelt_target_in_a_training_script_is_named_with_the_real_one(workspace):
    script = write(workspace, "train.py", f"""\
        from peft import LoraConfig, get_peft_model
        from transformers import AutoModelForCausalLM

        model = AutoModelForCausalLM.from_pretrained("{MODEL_ID}")
        config = LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_projj"])
        model = get_peft_model(model, config)
        """)
    result = opscope(workspace, "check", "--format", "json", str(script))
    found = diagnostics(result)
    no_match = [d for d in found if d["code"] == "no-match"]
    assert no_match, result.stdout + result.stderr
    assert "v_projj" in no_match[0]["message"] and "v_proj" in no_match[0]["message"].replace(
        "v_projj", ""), no_match[0]
    assert no_match[0]["range"]["start"][0] == 5, no_match[0]
    # q_proj matches: nothing said about it.
    assert not any("'q_proj'" in d["message"] or "`q_proj`" in d["message"] for d in found), found


def peft_wraps(target_modules, **fields):
    """What get_peft_model wraps on the tiny Llama, built on meta, and its trainable count."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    config = AutoConfig.for_model(**TINY_LLAMA)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config)
    return wraps_in(model, target_modules, **fields)


@pytest.mark.parametrize("target_modules, fields", [
    (["q_proj", "v_proj"], {"r": 8, "lora_alpha": 16}),
    ("all-linear", {"r": 4}),
    (r".*\.1\.mlp\.(gate|up)_proj", {"r": 16, "rank_pattern": {"up_proj": 2}}),
    (["o_proj", "down_proj"], {"layers_to_transform": [1], "layers_pattern": "layers"}),
])
def test_explain_wraps_what_get_peft_model_wraps(workspace, target_modules, fields):
    adapter = {"peft_type": "LORA", "base_model_name_or_path": MODEL_ID,
               "target_modules": target_modules, **fields}
    path = write(workspace, "adapter_config.json", json.dumps(adapter, indent=2))
    result = opscope(workspace, "explain", "--json", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    said = json.loads(result.stdout)["configs"][0]
    wrapped, trainable, total = peft_wraps(target_modules, **fields)
    assert sorted(w["module"] for w in said["wrapped"]) == wrapped
    assert said["trainable_parameters"] == trainable
    assert said["all_parameters"] == total
    ranks = {w["module"]: w["r"] for w in said["wrapped"]}
    for name, rank in fields.get("rank_pattern", {}).items():
        assert all(r == rank for m, r in ranks.items() if m.endswith(name)), ranks


def test_axolotl_yaml_is_checked_against_its_base_model(workspace):
    path = write(workspace, "axolotl.yaml", f"""\
        base_model: {MODEL_ID}
        adapter: lora
        lora_r: 8
        lora_alpha: 16
        lora_target_modules:
          - q_proj
          - k_projection
        """)
    result = opscope(workspace, "check", "--format", "json", str(path))
    found = [d for d in diagnostics(result) if d["code"] == "no-match"]
    assert len(found) == 1 and "k_projection" in found[0]["message"], result.stdout + result.stderr
    assert found[0]["range"]["start"][0] == 7


def test_a_base_model_missing_from_the_cache_says_how_to_get_it(workspace):
    path = write(workspace, "other_adapter_config.json", json.dumps(
        {"peft_type": "LORA", "base_model_name_or_path": "nobody/not-cached",
         "target_modules": ["q_proj"]}))
    # The name decides adapter_config.json; this one is checked because it is named.
    result = opscope(workspace, "check", "--format", "json", str(path))
    found = diagnostics(result)
    assert found and found[0]["code"] == "no-model", result.stdout + result.stderr
    assert "nobody/not-cached" in found[0]["message"] and "hf download" in found[0]["message"]


def test_an_adapter_config_json_would_not_load_is_said_where_and_not_explained(workspace):
    # A missing comma: json.load (and so PeftConfig.from_pretrained) refuses the file.
    (workspace / "project" / "broken").mkdir(exist_ok=True)
    path = write(workspace, "broken/adapter_config.json", f"""\
        {{
          "peft_type": "LORA",
          "base_model_name_or_path": "{MODEL_ID}"
          "target_modules": ["q_proj", "v_proj"]
        }}
        """)
    result = opscope(workspace, "check", "--format", "json", str(path))
    syntax = [d for d in diagnostics(result) if d["code"] == "syntax"]
    assert syntax and syntax[0]["severity"] == "error", result.stdout + result.stderr
    assert syntax[0]["range"]["start"][0] == 4, syntax[0]  # 1-based: the key after the gap
    result = opscope(workspace, "explain", str(path))
    assert result.returncode != 0, result.stdout
    assert f"{path}:4:" in result.stderr and "cannot load this config" in result.stderr, \
        result.stderr
