"""MoE experts as llm-compressor sees them (issue 27): oneshot splits fused experts first.

transformers 5 stores a MoE layer's experts as one module with 3-D `gate_up_proj` / `down_proj`
parameters; llm-compressor's oneshot calls `linearize_moe` before any modifier, which replaces
each by per-expert `gate_proj` / `up_proj` / `down_proj` Linear layers, so `targets: [Linear]`
quantizes every expert. opscope's llm-compressor dialect answers on the same view
(core/dialects/llmcompressor: linearize.h). Judged here against llm-compressor itself, on tiny
models of every fused-experts layout it splits (gated and ungated, transposed with biases,
registered and decorated classes, shared experts beside routed ones), built from configs with
random weights on CPU and exported weightless through `opscope_export` and `opscope index`:

- the table of classes linearize_moe splits is the installed transformers' (its
  `@use_experts_implementation` classes, by the same source parse llm-compressor does) plus
  LinearExperts2D's registry;
- the view (every module's name, class and MRO, every parameter's name, shape and dtype) is
  the model `linearize_moe` makes;
- generated recipes (the differential judge's generator, on the linearized names) resolve as
  compressed-tensors' matching resolves them on the linearized model;
- `oneshot` itself, data-free, then `save_pretrained(save_compressed=True)`: the modules that
  carry a quantization scheme afterwards, and their schemes, are the ones `opscope explain`
  lists, and the saved tensor bytes are the projected ones, exactly.
"""

from __future__ import annotations

import ast
import json
import os
import random
import subprocess
import sys
import time
import warnings
from unittest import mock

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"  # nothing is downloaded; the models are built from configs

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import transformers  # noqa: E402
from llmcompressor.modeling.moe.helpers import get_use_experts_implementation_args  # noqa: E402
from llmcompressor.modeling.moe.linear_experts import LinearExperts2D  # noqa: E402
from llmcompressor.modeling.moe.linearize import linearize_moe  # noqa: E402

from test_llmcompressor_judge import (  # noqa: E402
    JUDGE,
    Names,
    _recipe,
    llmcompressor_matching,
    opscope_results,
)
from test_llmcompressor_size import tensor_bytes  # noqa: E402

RECIPES_PER_FAMILY = 300

TEXT = dict(hidden_size=256, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
            vocab_size=512, max_position_embeddings=128)

# Each layout linearize_moe splits; the expert width 128 keeps group 128 dividing every layer.
FAMILIES = {
    "qwen3_moe": lambda: transformers.Qwen3MoeConfig(
        **TEXT, intermediate_size=512, head_dim=64, num_experts=4, num_experts_per_tok=2,
        moe_intermediate_size=128),
    "mixtral": lambda: transformers.MixtralConfig(
        **TEXT, intermediate_size=128, num_local_experts=4, num_experts_per_tok=2),
    # Registered (GptOssLinearExperts), transposed, with biases.
    "gpt_oss": lambda: transformers.GptOssConfig(
        **TEXT, intermediate_size=128, head_dim=64, num_local_experts=4, num_experts_per_tok=2),
    # A shared expert (plain Linear layers) beside the routed ones.
    "qwen2_moe": lambda: transformers.Qwen2MoeConfig(
        **TEXT, intermediate_size=512, num_experts=4, num_experts_per_tok=2,
        moe_intermediate_size=128, shared_expert_intermediate_size=256),
    # A dense first layer, then routed and shared experts.
    "deepseek_v3": lambda: transformers.DeepseekV3Config(
        **dict(TEXT, num_key_value_heads=4), head_dim=32, intermediate_size=512, moe_intermediate_size=128, n_routed_experts=4,
        num_experts_per_tok=2, n_shared_experts=1, first_k_dense_replace=1, q_lora_rank=None,
        kv_lora_rank=128, qk_rope_head_dim=32, qk_nope_head_dim=32, v_head_dim=64, n_group=1,
        topk_group=1),
    # Ungated experts (up_proj alone), under a hybrid model's `mixer`.
    "nemotron_h": lambda: transformers.NemotronHConfig(
        hidden_size=256, num_hidden_layers=2, hybrid_override_pattern="*E", num_attention_heads=4,
        num_key_value_heads=2, vocab_size=512, n_routed_experts=4, num_experts_per_tok=2,
        moe_intermediate_size=128, moe_shared_expert_intermediate_size=128, n_groups=1,
        mamba_num_heads=4, mamba_head_dim=64, ssm_state_size=16,
        time_step_limit=[0.0, 1e4]),  # the default's infinity is not read back from config.json
}


def modifier(body: str) -> str:
    return "quant_stage:\n  quant_modifiers:\n    QuantizationModifier:\n" + "".join(
        f"      {line}\n" for line in body.strip().splitlines())


# What oneshot runs per family (data-free): every Linear, the experts by pattern with one
# expert ignored by its per-expert name, and FP8 on the experts' down projections only.
ONESHOT = [
    ("W4A16 on Linear", modifier("targets: [Linear]\nscheme: W4A16\nignore: [lm_head]")),
    ("W8A16 on the experts, one ignored", modifier(
        'targets: ["re:.*experts.*"]\nscheme: W8A16\n'
        'ignore: ["re:.*experts\\\\.1\\\\..*", lm_head]')),
    ("FP8_DYNAMIC on experts' down_proj", modifier(
        'targets: ["re:.*experts\\\\.[0-9]+\\\\.down_proj$"]\nscheme: FP8_DYNAMIC')),
]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    root = tmp_path_factory.mktemp("llmcompressor_moe")
    os.environ["HF_HOME"] = str(root / "hf")  # private caches
    return root


def base_checkpoint(workspace, family):
    folder = workspace / "base" / family
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(FAMILIES[family](), dtype=torch.bfloat16)
    model.save_pretrained(folder)
    return folder


def export_index(workspace, base) -> str:
    """The base model exported weightless (hf:config.json) and indexed, as the editor does."""
    from opscope_export.export import ExportRequest, export_archive

    archive, index = str(base) + ".pt2", str(base) + ".idx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        export_archive(ExportRequest(target=f"hf:{base / 'config.json'}", output=archive))
    subprocess.run([os.environ["OPSCOPE_BIN"], "index", archive, "-o", index, "-q", "--no-cache"],
                   check=True)
    return index


def loaded_and_linearized(base):
    model = transformers.AutoModelForCausalLM.from_pretrained(base, dtype="auto")
    linearize_moe(model)
    return model


def persistent_buffer_bytes(model) -> int:
    """The bytes of the buffers save_pretrained writes (those in the state dict)."""
    parameters = {n for n, _ in model.named_parameters()}
    return sum(t.numel() * t.element_size() for n, t in model.state_dict().items()
               if n not in parameters)


def qualified(cls) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def view_of(model) -> dict:
    """named_modules() (name, class, the MRO between the class and Module) and
    named_parameters() (name, shape, dtype), as the index records them."""
    modules = []
    for name, m in model.named_modules():
        mro = type(m).__mro__
        between = [qualified(c) for c in mro[1:mro.index(torch.nn.Module)]]
        modules.append([name, qualified(type(m)), between])
    parameters = [[n, list(p.shape), str(p.dtype).removeprefix("torch.")]
                  for n, p in model.named_parameters()]
    return {"modules": modules, "parameters": parameters}


def args_json(args):
    """QuantizationArgs as `opscope explain --json` writes a scheme's arguments."""
    if args is None:
        return None
    def value(x):  # an enum, or its value where pydantic kept the value
        return getattr(x, "value", x)

    dynamic = args.dynamic if isinstance(args.dynamic, bool) else str(value(args.dynamic))
    return {"num_bits": args.num_bits, "type": value(args.type), "strategy": value(args.strategy),
            "group_size": args.group_size, "symmetric": args.symmetric, "dynamic": dynamic}


def scheme_json(scheme) -> dict:
    return {k: args_json(getattr(scheme, k))
            for k in ("weights", "input_activations", "output_activations")}


def opscope_explain(workspace, config, index) -> dict:
    env = dict(os.environ, HF_HOME=str(workspace / "hf"), XDG_CACHE_HOME=str(workspace / "cache"),
               VIRTUAL_ENV=sys.prefix)
    result = subprocess.run([os.environ["OPSCOPE_BIN"], "explain", "-q", str(config), "--model",
                             index, "--json"], env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout)


def test_the_classes_opscope_splits_are_the_ones_linearize_moe_splits():
    """Which classes linearize_moe splits, and how: LinearExperts2D's registry with its own
    classes (linearize.cpp's table), and for every class of the installed transformers, the
    @use_experts_implementation arguments the export records (module_names.py) are the ones
    get_use_experts_implementation_args parses from the same source (None: not split)."""
    from opscope_export.module_names import experts_implementation_args

    tables = json.loads(subprocess.run([JUDGE, "--tables"], check=True, capture_output=True,
                                       text=True).stdout)
    ours = {c["fused"]: c for c in tables["linearized"]}
    LinearExperts2D.get_registration(torch.nn.Module)  # imports the registered replacements
    registry = {qualified(k): v for k, v in LinearExperts2D._registry.items()
                if v.__name__ != "LinearExperts2D"}
    assert set(ours) == set(registry)
    for name, replacement in registry.items():
        assert ours[name]["experts"] == qualified(replacement), name
        assert ours[name]["expert"] == qualified(replacement.expert_cls_with_gate), name
        assert ours[name]["transposed"] == replacement.is_transposed, name
        assert ours[name]["gated"] == replacement.has_gate, name
    models = os.path.join(os.path.dirname(transformers.__file__), "models")
    decorated = 0
    for family in sorted(os.listdir(models)):
        folder = os.path.join(models, family)
        for file in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
            if not (file.startswith("modeling_") and file.endswith(".py")):
                continue
            with open(os.path.join(folder, file), encoding="utf-8") as f:
                tree = ast.parse(f.read())
            for node in tree.body:
                if not isinstance(node, ast.ClassDef) or not node.decorator_list:
                    continue
                source = ast.unparse(node)
                theirs = _decorator_args(node)
                if theirs is not None:
                    decorated += 1
                    theirs = {k: theirs[k] for k in ("is_transposed", "has_gate")}
                assert experts_implementation_args(source) == theirs, f"{family}.{node.name}"
    assert decorated >= 60  # transformers 5.24 decorates 68 experts classes


def _decorator_args(node) -> dict:
    """get_use_experts_implementation_args itself on one parsed class: its source is handed to
    llm-compressor's parse instead of importing the module (68 model files)."""
    with mock.patch("inspect.getsource", return_value=ast.unparse(node)):
        return get_use_experts_implementation_args(object)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_moe_experts_as_llm_compressor_sees_them(family, workspace):
    from llmcompressor import oneshot

    started = time.monotonic()
    base = base_checkpoint(workspace, family)
    index = export_index(workspace, base)

    # The view is the model linearize_moe makes.
    seen = json.loads(subprocess.run([JUDGE, "--modules", index], check=True,
                                     capture_output=True, text=True).stdout)
    model = loaded_and_linearized(base)
    real = view_of(model)
    assert seen["modules"] == real["modules"]
    assert seen["parameters"] == real["parameters"]
    assert seen["fused_left"] == []

    # Generated recipes resolve as compressed-tensors' matching resolves them.
    rng = random.Random(f"llmcompressor-moe-{family}")
    names = Names(model)
    recipes = [_recipe(rng, names) for _ in range(RECIPES_PER_FAMILY)]
    recipes += [{"QuantizationModifier": {"targets": ["Linear"], "scheme": "W4A16",
                                          "ignore": ["lm_head"]}}]
    (workspace / family).mkdir()
    ours = opscope_results(index, recipes, workspace / family)
    disagreements = []
    for recipe, got in zip(recipes, ours):
        want = llmcompressor_matching(recipe, model)
        if bool(got["error"]) != want["error"]:
            disagreements.append((recipe, "error", got["error"], want.get("codes")))
        elif not want["error"]:
            applied = {k: v for k, v in got["applied"].items() if k not in want["skipped"]}
            if applied != want["applied"] or got["mappings"] != want["mappings"]:
                disagreements.append((recipe, "applied", applied, want["applied"]))
    assert not disagreements, f"{len(disagreements)} of {len(recipes)}: {disagreements[:2]}"
    experts_quantized = sum(".experts." in k for k in ours[-1]["applied"])
    assert experts_quantized > 0, ours[-1]

    # oneshot itself: the modules quantized and their schemes, and the saved bytes.
    rows = []
    for i, (label, text) in enumerate(ONESHOT):
        recipe = workspace / f"{family}_{i}.yaml"
        recipe.write_text(text)
        model = transformers.AutoModelForCausalLM.from_pretrained(base, dtype="auto")
        buffers = persistent_buffer_bytes(model)
        oneshot(model=model, recipe=str(recipe))
        quantized = {n: scheme_json(m.quantization_scheme) for n, m in model.named_modules()
                     if getattr(m, "quantization_scheme", None) is not None}
        explained = opscope_explain(workspace, recipe, index)
        listed = {q["module"]: q["scheme"] for m in explained["modifiers"] for q in m["quantized"]}
        assert listed == quantized, (family, label, sorted(set(listed) ^ set(quantized)))
        out = workspace / f"saved_{family}_{i}"
        model.save_pretrained(out, save_compressed=True)
        saved, projected = tensor_bytes(out), explained["size"]["bytes"]["after"]
        # Persistent buffers (a router's e_score_correction_bias) are saved but not projected:
        # the index does not record which buffers persist (KNOWN: size.cpp skips buffers).
        assert projected + buffers == saved, (family, label, saved, projected, buffers)
        assert explained["size"]["caveat"] is None, explained["size"]["caveat"]
        rows.append(f"{label}: {len(quantized)} modules, {saved} B saved = projected"
                    + (f" + {buffers} B of buffers" if buffers else ""))
    print(f"\n{family}: view of {len(real['modules'])} modules and {len(real['parameters'])} "
          f"parameters = linearize_moe's; {len(recipes)} recipes agree ({experts_quantized} expert "
          f"Linear layers under W4A16); " + "; ".join(rows) +
          f"; {time.monotonic() - started:.1f} s")
