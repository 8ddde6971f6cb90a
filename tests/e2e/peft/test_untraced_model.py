"""A model torch.export cannot trace (ViLT samples its image patches with multinomial on the
pixel mask's values), named by a Hugging Face id in a private cache: opscope still has its
module names, so a LoRA config on it is checked and explained as on any other model, with
get_peft_model as the judge; a coreai-opt config, which needs the graph's ops, is told why
there is none instead of being told that every entry matches nothing.
"""

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "dialects"))
from fixtures.hf_hub import write_hub_config  # noqa: E402
from fixtures.hub_project import diagnostics, run_opscope as opscope  # noqa: E402
from fixtures.hub_project import write_project_file as write  # noqa: E402
from fixtures.peft_wraps import peft_wraps as wraps_in  # noqa: E402
from peft_families import FAMILIES  # noqa: E402

MODEL_ID = "tiny-random/vilt-vqa"
VILT = FAMILIES["vilt"]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    root = tmp_path_factory.mktemp("untraced")
    write_hub_config(root / "hf", MODEL_ID, VILT)
    (root / "project").mkdir()
    return root


def test_a_misspelt_target_is_named_with_the_real_one_and_the_missing_graph_is_said(workspace):
    script = write(workspace, "train.py", f"""\
        from peft import LoraConfig, get_peft_model
        from transformers import ViltForQuestionAnswering

        model = ViltForQuestionAnswering.from_pretrained("{MODEL_ID}")
        config = LoraConfig(r=8, target_modules=["query", "valuee"])
        model = get_peft_model(model, config)
        """)
    result = opscope(workspace, "check", "--format", "json", str(script))
    found = diagnostics(result)
    no_match = [d for d in found if d["code"] == "no-match"]
    assert len(no_match) == 1, result.stdout + result.stderr
    assert "valuee" in no_match[0]["message"], no_match[0]
    assert "`value`" in no_match[0]["message"] or "'value'" in no_match[0]["message"], no_match[0]
    # The export's warning reaches the user: why there is no graph.
    assert "cannot trace it" in result.stderr and "multinomial" in result.stderr, result.stderr


def peft_wraps(target_modules, **fields):
    """What get_peft_model wraps on ViLT built on meta, and its trainable count."""
    import torch
    from transformers import AutoConfig, ViltForQuestionAnswering

    config = AutoConfig.for_model(**VILT)
    with torch.device("meta"):
        model = ViltForQuestionAnswering(config)
    return wraps_in(model, target_modules, **fields)


@pytest.mark.parametrize("target_modules, fields", [
    (["query", "value"], {"r": 8, "lora_alpha": 16}),
    ("all-linear", {"r": 4, "modules_to_save": ["classifier"]}),
    (r".*encoder\.layer\.[12]\..*dense", {"r": 2}),
])
def test_explain_wraps_what_get_peft_model_wraps(workspace, target_modules, fields):
    adapter = {"peft_type": "LORA", "base_model_name_or_path": MODEL_ID,
               "target_modules": target_modules, **fields}
    path = write(workspace, "adapter_config.json", json.dumps(adapter, indent=2))
    result = opscope(workspace, "explain", "--json", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    said = json.loads(result.stdout)["configs"][0]
    wrapped, trainable, total = peft_wraps(target_modules, **fields)
    assert wrapped, "the case wraps nothing in PEFT either: it tests nothing"
    assert sorted(w["module"] for w in said["wrapped"]) == wrapped
    assert said["trainable_parameters"] == trainable
    assert said["all_parameters"] == total


def test_a_coreai_opt_config_is_told_the_graph_is_missing_and_why(workspace):
    write(workspace, "opscope.yaml", f"model: hf:{MODEL_ID}\n")
    config = write(workspace, "quant.yaml", """\
        quantization_config:
          global_config:
            op_state_spec:
              weight: {dtype: int8}
          module_name_configs:
            vilt.encoder.layer.0: null
        """)
    try:
        # opscope.yaml is the project's: trusted for this run, as a user would.
        result = opscope(workspace, "check", "--trust", "--format", "json", str(config))
        found = diagnostics(result)
        assert result.returncode != 0, result.stdout + result.stderr
        problems = [d for d in found if "only the module names" in d["message"]]
        assert len(problems) == 1, found
        assert "multinomial" in problems[0]["message"], problems[0]
        # Not a wall of entries that match nothing: the model problem says it all.
        assert not [d for d in found if d["code"] == "no-match"], found
        explained = opscope(workspace, "explain", "--trust", str(config))
        assert explained.returncode != 0 and "only the module names" in explained.stderr, \
            explained.stdout + explained.stderr
    finally:
        (workspace / "project" / "opscope.yaml").unlink()


def test_the_summary_shows_the_modules_and_says_why_there_are_no_ops(workspace):
    result = opscope(workspace, "summary", f"hf:{MODEL_ID}")
    assert result.returncode == 0, result.stderr
    assert "no graph, its modules only" in result.stderr and "multinomial" in result.stderr, \
        result.stderr
    assert "vilt.encoder.layer.3.attention.attention.value" in result.stdout, result.stdout
    assert "◆" not in result.stdout.split("\n\n", 1)[-1], "an op in a model without a graph"
