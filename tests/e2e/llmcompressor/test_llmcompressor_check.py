"""llm-compressor configs end to end: `opscope check` and `opscope explain` on a compressed-tensors
checkpoint's config.json (its own model, no opscope.yaml), a oneshot script naming a model id of
a private Hugging Face cache, and a recipe YAML whose opscope.yaml names the model. The judge of
`explain` is compressed-tensors itself: the scheme every module carries after
apply_quantization_config (checkpoints) or the modifier's initialize_quantization (recipes), on
the same architecture built on meta.
"""

import json
import logging
import sys
import textwrap
import warnings
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "python"))
from fixtures.hf_hub import TINY_LLAMA, TINY_LLAMA_ID as MODEL_ID  # noqa: E402
from fixtures.hub_project import diagnostics, make_hub_project, run_opscope as opscope  # noqa: E402

import torch  # noqa: E402
from compressed_tensors.quantization import QuantizationConfig, apply_quantization_config  # noqa: E402
from compressed_tensors.quantization.lifecycle.initialize import (  # noqa: E402
    _is_attention_module,
    is_cached_attention_module,
)
from loguru import logger as loguru_logger  # noqa: E402

loguru_logger.remove()  # llm-compressor logs every unmatched target
logging.getLogger("compressed_tensors").setLevel(logging.ERROR)

from llmcompressor.modifiers.quantization import GPTQModifier, QuantizationModifier  # noqa: E402

# A Gemma 3 small enough to export in seconds: text decoder, vision tower and projector, as
# transformers 5 lays them out (model.language_model..., model.vision_tower..., lm_head).
TINY_GEMMA3 = dict(
    text_config=dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                     num_attention_heads=2, num_key_value_heads=1, head_dim=32, vocab_size=256,
                     sliding_window=16),
    vision_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                       num_attention_heads=2, image_size=32, patch_size=8),
    mm_tokens_per_image=4)

W4_GROUP32 = {"num_bits": 4, "type": "int", "symmetric": True, "strategy": "group",
              "group_size": 32}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    return make_hub_project(tmp_path_factory.mktemp("llmcompressor"))


def gemma3_config():
    from transformers import Gemma3Config
    return Gemma3Config(**TINY_GEMMA3)


def gemma3_checkpoint(workspace, name, ignore):
    """A W4A16 checkpoint's config.json for the tiny Gemma 3, in its own folder."""
    folder = workspace / name
    folder.mkdir()
    config = gemma3_config().to_dict()
    config["architectures"] = ["Gemma3ForConditionalGeneration"]
    config["quantization_config"] = {
        "quant_method": "compressed-tensors", "format": "pack-quantized",
        "config_groups": {"group_0": {"targets": ["Linear"], "weights": W4_GROUP32}},
        "ignore": ignore}
    path = folder / "config.json"
    path.write_text(json.dumps(config, indent=2))
    return path


def line_of(path, text):
    return next(i for i, line in enumerate(path.read_text().splitlines()) if text in line)


def args_of(q):
    """QuantizationArgs as explain --json writes them."""
    if q is None:
        return None
    def value(v):  # pydantic keeps enum values (use_enum_values)
        return getattr(v, "value", v)
    return {"num_bits": q.num_bits, "type": value(q.type), "strategy": value(q.strategy),
            "group_size": q.group_size, "symmetric": q.symmetric, "dynamic": value(q.dynamic)}


def schemes_on(model):
    """module -> the scheme compressed-tensors attached (attention modules without a cache
    argument are left out, as the judge does: the index has no forward signatures)."""
    out = {}
    for name, module in model.named_modules():
        scheme = getattr(module, "quantization_scheme", None)
        if scheme is None or (_is_attention_module(module)
                              and not is_cached_attention_module(module)):
            continue
        out[name] = {"weights": args_of(scheme.weights),
                     "input_activations": args_of(scheme.input_activations),
                     "output_activations": args_of(scheme.output_activations)}
    return out


def explained(result):
    """module -> scheme from explain --json, and module -> the ignore entry that left it out."""
    assert result.returncode == 0, result.stdout + result.stderr
    modifiers = json.loads(result.stdout)["modifiers"]
    assert len(modifiers) == 1, modifiers
    m = modifiers[0]
    return ({q["module"]: q["scheme"] for q in m["quantized"] if not q["attention"]},
            {i["module"]: i["ignored_by"] for i in m["ignored"]})


# ---- the issue's headline: Gemma 3's head in an ignore list ---------------------------------


def test_gemma3_head_named_for_the_old_layout_is_a_warning_offering_the_real_name(workspace):
    # Checkpoints made under transformers 4.5x name the head language_model.lm_head; in
    # transformers 5 it is lm_head at the root, so this ignore entry leaves nothing out and the
    # head is packed at 4 bits.
    path = gemma3_checkpoint(workspace, "gemma3-old-layout", ["language_model.lm_head"])
    result = opscope(workspace, "check", "--format", "json", str(path))
    found = diagnostics(result)
    no_match = [d for d in found if d["code"] == "no-match"]
    assert len(no_match) == 1, result.stdout + result.stderr
    assert no_match[0]["severity"] == "warning"
    assert "`language_model.lm_head`" in no_match[0]["message"]
    assert "did you mean `lm_head`?" in no_match[0]["message"], no_match[0]
    assert no_match[0]["range"]["start"][0] == line_of(path, '"language_model.lm_head"') + 1
    # ...and the head is said to be quantized.
    assert any(d["code"] == "head-quantized" and "`lm_head`" in d["message"] for d in found), found
    # coreai-opt's reader (whose root key is also quantization_config) says nothing.
    assert not any(d["code"] == "unknown-field" for d in found), found


def test_gemma3_ignore_lm_head_leaves_out_what_compressed_tensors_leaves_out(workspace):
    path = gemma3_checkpoint(workspace, "gemma3", ["lm_head", "re:.*vision_tower.*"])
    result = opscope(workspace, "check", "--format", "json", str(path))
    assert not [d for d in diagnostics(result) if d["code"] in ("no-match", "head-quantized")], \
        result.stdout + result.stderr
    # The text a user reads: one line per module, its scheme or the entry that ignores it.
    text = opscope(workspace, "explain", str(path))
    assert text.returncode == 0, text.stdout + text.stderr
    lines = text.stdout.splitlines()
    assert "quantization_config quantizes 14 of" in lines[0] and "10 ignored" in lines[0], lines[0]
    assert any(l.split()[:2] == ["lm_head", "Linear"] and "ignored by `lm_head`" in l
               for l in lines), text.stdout
    assert any(l.split()[0] == "model.language_model.layers.1.mlp.down_proj"
               and "w4 int group 32, a16 (group_0, by `Linear`)" in l for l in lines), text.stdout
    said, ignored = explained(opscope(workspace, "explain", "--json", str(path)))
    assert ignored["lm_head"] == "lm_head"
    assert ignored["model.vision_tower.encoder.layers.0.mlp.fc1"] == "re:.*vision_tower.*"
    # The judge: loading the checkpoint's quantization_config on the same model.
    from transformers import Gemma3ForConditionalGeneration
    with torch.device("meta"):
        model = Gemma3ForConditionalGeneration(gemma3_config())
    q = json.loads(path.read_text())["quantization_config"]
    apply_quantization_config(model, QuantizationConfig(
        config_groups=q["config_groups"], ignore=q["ignore"], format=q["format"]))
    applied = schemes_on(model)
    assert len(applied) == 14, sorted(applied)  # the decoder's 2 x 7 Linear layers
    assert said == applied


# ---- recipes: explain judged by the modifier's own initialize_quantization ------------------


def llama_on_meta():
    from transformers import AutoConfig, AutoModelForCausalLM
    with torch.device("meta"):
        return AutoModelForCausalLM.from_config(AutoConfig.for_model(**TINY_LLAMA))


def initialized(cls, fields):
    model = llama_on_meta()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        {"QuantizationModifier": QuantizationModifier, "GPTQModifier": GPTQModifier}[cls](
            **fields).initialize_quantization(model)
    return schemes_on(model)


RECIPES = [
    ("QuantizationModifier", {"targets": ["Linear"], "scheme": "W4A16", "ignore": ["lm_head"]}),
    ("GPTQModifier", {"targets": "Linear", "scheme": "W8A8",
                      "ignore": ["lm_head", "re:.*mlp.down_proj$"]}),
    ("QuantizationModifier", {"scheme": {"FP8_DYNAMIC": ["re:.*self_attn.*"],
                                         "W4A16": ["re:.*mlp.*"]}}),
    ("QuantizationModifier", {"config_groups": {
        "attention": {"targets": ["re:.*[qkv]_proj$"], "weights": W4_GROUP32},
        "rest": {"targets": ["Linear"], "weights": {"num_bits": 8, "strategy": "channel"},
                 "input_activations": {"num_bits": 8, "strategy": "token", "dynamic": True}}},
        "ignore": ["model.layers.1.mlp.up_proj"]}),
]


def python_call(value):
    return repr(value)


@pytest.mark.parametrize("cls, fields", RECIPES)
def test_explain_of_a_oneshot_script_is_what_initialize_quantization_applies(
        workspace, cls, fields):
    script = workspace / "project" / "quantize.py"
    arguments = ", ".join(f"{k}={python_call(v)}" for k, v in fields.items())
    script.write_text(textwrap.dedent(f"""\
        from llmcompressor import oneshot
        from llmcompressor.modifiers.quantization import {cls}

        recipe = {cls}({arguments})
        oneshot(model="{MODEL_ID}", recipe=recipe)
        """))
    said, _ = explained(opscope(workspace, "explain", "--json", str(script)))
    applied = initialized(cls, fields)
    assert applied, "the recipe quantizes something"
    assert said == applied


def test_a_recipe_yaml_is_checked_on_the_model_its_opscope_yaml_names(workspace):
    folder = workspace / "recipe"
    folder.mkdir()
    (folder / "opscope.yaml").write_text(f"model: hf:{MODEL_ID}\n")
    recipe = folder / "recipe.yaml"
    recipe.write_text(textwrap.dedent("""\
        quant_stage:
          quant_modifiers:
            GPTQModifier:
              targets: [Linear]
              scheme: W4A16
              ignore: [lm_head, "re:.*gate_projj$", model.layers.1.mlp.up_projx]
        """))
    # An opscope.yaml naming a model opscope exports runs only with consent (--trust).
    result = opscope(workspace, "check", "--trust", "--format", "json", str(recipe))
    found = [d for d in diagnostics(result) if d["code"] == "no-match"]
    assert len(found) == 2 and "gate_projj" in found[0]["message"], result.stdout + result.stderr
    assert found[0]["range"]["start"][0] == 6
    # A misspelt last part: its siblings are compared first.
    assert "did you mean `model.layers.1.mlp.up_proj`?" in found[1]["message"], found[1]
    said, ignored = explained(opscope(workspace, "explain", "--trust", "--json", str(recipe)))
    assert ignored == {"lm_head": "lm_head"}
    assert said == initialized("GPTQModifier", {"targets": ["Linear"], "scheme": "W4A16",
                                                "ignore": ["lm_head", "re:.*gate_projj$",
                                                           "model.layers.1.mlp.up_projx"]})


def test_a_flat_recipe_is_said_to_quantize_nothing_as_llm_compressor_reads_it(workspace):
    """llm-compressor 0.14 reads modifiers only under `<x>_stage: <y>_modifiers:`: a flat
    recipe gives no modifier at all, and oneshot saves the model dense without a word."""
    from llmcompressor.recipe import Recipe
    folder = workspace / "flat"
    folder.mkdir()
    (folder / "opscope.yaml").write_text(f"model: hf:{MODEL_ID}\n")
    recipe = folder / "recipe.yaml"
    recipe.write_text("QuantizationModifier:\n  targets: [Linear]\n  scheme: W4A16\n"
                      "  ignore: [lm_head]\n")
    assert Recipe.create_instance(recipe.read_text()).modifiers == []
    result = opscope(workspace, "check", "--trust", "--format", "json", str(recipe))
    found = [d for d in diagnostics(result) if d["code"] == "recipe-not-read"]
    assert len(found) == 1 and found[0]["severity"] == "error", result.stdout + result.stderr
    assert found[0]["range"]["start"][0] == 1  # the modifier key, on line 1
    assert "`QuantizationModifier` is never applied (the checkpoint is saved unquantized)" in \
        found[0]["message"]
    result = opscope(workspace, "explain", "--trust", "--json", str(recipe))
    said = json.loads(result.stdout)
    assert said["modifiers"] == [] and [m["class"] for m in said["not_read"]] == \
        ["QuantizationModifier"], said
    assert said["size"]["bytes"]["after"] == said["size"]["bytes"]["before"], said["size"]
    assert f"{recipe}:1: error: llm-compressor 0.14 reads modifiers only under" in result.stderr
    text = opscope(workspace, "explain", "--trust", str(recipe))
    assert "is not read by llm-compressor: it applies nothing" in text.stdout, text.stdout


def test_a_refused_recipe_fails_explain_with_llm_compressors_reason(workspace):
    script = workspace / "project" / "refused.py"
    script.write_text(textwrap.dedent(f"""\
        from llmcompressor import oneshot
        from llmcompressor.modifiers.quantization import QuantizationModifier

        recipe = QuantizationModifier(targets="Linear", scheme="W4A17")
        oneshot(model="{MODEL_ID}", recipe=recipe)
        """))
    result = opscope(workspace, "explain", str(script))
    assert result.returncode != 0, result.stdout
    assert f"{script}:4: error:" in result.stderr and "W4A17" in result.stderr, result.stderr
    with pytest.raises(Exception):  # llm-compressor refuses it too
        QuantizationModifier(targets="Linear", scheme="W4A17").initialize_quantization(
            llama_on_meta())
