"""MagnitudePruner's resolution (issue 10) against coreai-opt: for each config below,
`opscope explain --json`'s "parameters" must name, parameter by parameter, the spec that
`MagnitudePruner(model, config).prepare()` gives it (target sparsity and scheme of the
PruneImplBase parametrization it registers), and the entry it names must be the one that
spec is written under. Every entry has its own sparsity, so a wrong winner shows.
The configs overlap on purpose: a name key before its parent's (it loses), a module type
claiming modules from an earlier type key, op_type_config / op_name_config inside a module
entry, null entries, a module_state_spec. Runs in the fidelity_size ctest (same exported
fixtures, eager index). Prints its times."""

from __future__ import annotations

import copy
import json
import subprocess
import time

import pytest

from conftest import build_fixture_model

LINEAR = "torch.nn.modules.linear.Linear"
CONV2D = "torch.nn.modules.conv.Conv2d"
# The conv2 call of layer1.1 (coreai-opt names an eager op "MODULE.FUNCTION_N").
OP_NAME = r"layer1\.1\.conv2\..*"


def sparsity(value: float, **extra) -> dict:
    return {"op_state_spec": {"weight": {"target_sparsity": value, **extra}}}


RESNET = {"magnitude_pruning_config": {
    "global_config": sparsity(0.11),
    "module_type_configs": {
        CONV2D: sparsity(0.12),
        # Later type key: claims layer4's blocks and their convolutions from Conv2d.
        "fixtures.resnet.BasicBlock": {
            "op_state_spec": {"weight": {"target_sparsity": 0.13}},
            "op_type_config": {"conv2d": {"op_state_spec": {"weight": {
                "target_sparsity": 0.14,
                "pruning_scheme": {"type": "channel_structured", "axis": 0}}}}}},
    },
    "module_name_configs": {
        # Written before its parent's key: layer3 wins its conv1 (overridden).
        r"layer3\.0\.conv1": sparsity(0.21),
        r"layer3": sparsity(0.22),
        r"layer1\.1": {"op_state_spec": {"weight": {"target_sparsity": 0.23}},
                       "op_name_config": {OP_NAME: sparsity(0.24)}},
        r"layer2\.0\.downsample": None,
        "fc": {"op_state_spec": {"weight": None}},
    },
}}

LLAMA = {"magnitude_pruning_config": {
    "global_config": sparsity(0.31),
    "module_type_configs": {
        LINEAR: sparsity(0.32),
        "transformers.models.llama.modeling_llama.LlamaMLP": sparsity(0.33),
    },
    "module_name_configs": {
        r"model\.layers\.1\.mlp\.down_proj": sparsity(0.41),
        r"model\.layers\.1\.mlp": sparsity(0.42),
        r"model\.layers\.0\.self_attn": {
            "op_state_spec": {"weight": {"target_sparsity": 0.43}},
            "op_type_config": {"linear": sparsity(0.44)}},
        r"model\.layers\.1\.self_attn\.(q|k)_proj": sparsity(0.45),
        "lm_head": None,
        r"model\.norm": {"module_state_spec": {"weight": {"target_sparsity": 0.46}}},
    },
}}

CASES = [("resnet18", "overlapping", RESNET), ("hf_llama", "overlapping", LLAMA)]

# nn.MultiheadAttention: F.multi_head_attention_forward (registered as multi_head_attention)
# runs inside `attn` and reads in_proj_weight and out_proj.weight (local name `weight`), so
# both take attn's spec dict; out_proj's own forward never runs, so a key on it governs nothing.
MHA = [
    ("both-weights", {"magnitude_pruning_config": {
        "global_config": sparsity(0.11),
        "module_name_configs": {"attn": {"op_state_spec": {
            "in_proj_weight": {"target_sparsity": 0.6}, "weight": {"target_sparsity": 0.7}}}}}}),
    ("out-proj-key-ignored", {"magnitude_pruning_config": {
        "global_config": sparsity(0.11),
        "module_name_configs": {r"attn\.out_proj": sparsity(0.8), "attn": {
            "op_state_spec": {"in_proj_weight": {"target_sparsity": 0.6}}}}}}),
    ("op-type", {"magnitude_pruning_config": {"global_config": {
        "op_state_spec": {"weight": {"target_sparsity": 0.2}},
        "op_type_config": {"multi_head_attention": {"op_state_spec": {
            "in_proj_weight": {"target_sparsity": 0.4}, "weight": {"target_sparsity": 0.45}}}}}}}),
]


@pytest.fixture(scope="module")
def eager_index(fixture_archive, inspect_worker, tmp_path_factory):
    """name -> path of that fixture's eager-mode index (the archive is the session's)."""
    outdir = tmp_path_factory.mktemp("prune")
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


def scheme_of(scheme) -> dict:
    """A PruningScheme (or the dict opscope prints) as {"type", "axis"}."""
    if isinstance(scheme, dict):
        return {"type": scheme.get("type", "unstructured"), "axis": scheme.get("axis")}
    return {"type": type(scheme).__name__.lower().replace("channelstructured",
                                                          "channel_structured"),
            "axis": scheme.axis}


def pruned_by_coreai(name: str, config: dict) -> dict[str, tuple[float, dict]]:
    """coreai-opt's answer: parameter name -> (target sparsity, scheme) of the PruneImplBase
    parametrization prepare() registers on it; parameters left dense are absent."""
    from torch.nn.utils import parametrize

    from coreai_opt.pruning import MagnitudePruner, MagnitudePrunerConfig
    from coreai_opt.pruning.spec import PruneImplBase

    model, args = build_fixture_model(name)
    prepared = MagnitudePruner(model, MagnitudePrunerConfig.from_dict(
        copy.deepcopy(config))).prepare(args)
    out: dict[str, tuple[float, dict]] = {}
    for module_name, module in prepared.named_modules():
        if not parametrize.is_parametrized(module):
            continue
        for param_name, chain in module.parametrizations.items():
            for impl in chain:
                if isinstance(impl, PruneImplBase):
                    full = f"{module_name}.{param_name}" if module_name else param_name
                    out[full] = (impl._target_sparsity, scheme_of(impl._pruning_scheme))
    return out


def spec_at(config: dict, entry: dict | None, table: str, key: str):
    """The spec written under opscope's deciding entry (path from the document root), in the
    spec dict it names: what that entry gives the parameter."""
    node = config
    for step in entry["path"]:
        node = node[step]
    if node is None:
        return None
    specs = node.get(table) if isinstance(node, dict) else None
    return None if specs is None else specs.get(key)


@pytest.mark.parametrize("name,label,config", CASES, ids=[f"{n}-{l}" for n, l, _ in CASES])
def test_explain_names_the_spec_prepare_prunes_with(name, label, config, eager_index,
                                                    opscope_bin, tmp_path, coreai_opt):
    config_path = tmp_path / f"{label}.json"
    config_path.write_text(json.dumps(config, indent=2))
    started = time.monotonic()
    proc = subprocess.run([opscope_bin, "explain", str(config_path), "--model",
                           eager_index(name), "--json"], capture_output=True, text=True,
                          timeout=60)
    explain_seconds = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr
    explained = json.loads(proc.stdout)

    started = time.monotonic()
    expected = pruned_by_coreai(name, config)
    prepare_seconds = time.monotonic() - started

    listed: dict[str, tuple[float, dict]] = {}
    for row in explained["parameters"]:
        assert row["entry"] is not None, row  # every config here writes global_config
        written = spec_at(config, row["entry"], row["spec_table"], row["spec_key"])
        if row["spec"] is None:
            assert written is None, row
            continue
        # The entry opscope names holds the spec it reports.
        assert written is not None and written["target_sparsity"] == \
            row["spec"]["target_sparsity"], row
        listed[row["parameter"]] = (row["spec"]["target_sparsity"],
                                    scheme_of(row["spec"]["pruning_scheme"]))
    agree = [p for p in listed if expected.get(p) == listed[p]]
    print(f"\n{name}/{label}: explain {explain_seconds:.2f} s, prepare {prepare_seconds:.1f} s; "
          f"prepare() prunes {len(expected)} parameters, explain lists {len(listed)}, "
          f"{len(agree)} agree on the spec")
    missing = sorted(set(expected) - set(listed))
    extra = sorted(set(listed) - set(expected))
    wrong = [f"{p}: opscope says {listed[p]}, prepare() applied {expected[p]}"
             for p in sorted(set(listed) & set(expected)) if listed[p] != expected[p]]
    assert not missing and not extra and not wrong, (
        f"{name}/{label}: opscope's resolution differs from prepare():\n"
        f"pruned by prepare(), not listed: {missing}\nlisted, not pruned: {extra}\n"
        + "\n".join(wrong))
    # Several entries decide something (the configs overlap), and the overridden one is said.
    assert len({s for s, _ in expected.values()}) >= 4
    codes = {d["code"] for d in explained["diagnostics"]}
    assert "overridden" in codes, explained["diagnostics"]
    # Every entry here prunes something (model.norm through its module_state_spec).
    assert "no-effect" not in codes, explained["diagnostics"]


@pytest.mark.parametrize("label,config", MHA, ids=[label for label, _ in MHA])
def test_multihead_attention_weights_are_pruned_as_prepare_prunes_them(label, config, eager_index,
                                                                       opscope_bin, tmp_path,
                                                                       coreai_opt):
    config_path = tmp_path / f"{label}.json"
    config_path.write_text(json.dumps(config, indent=2))
    proc = subprocess.run([opscope_bin, "explain", str(config_path), "--model",
                           eager_index("multihead_attention"), "--json"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    said = {row["parameter"]: (row["spec"]["target_sparsity"],
                               scheme_of(row["spec"]["pruning_scheme"]))
            for row in json.loads(proc.stdout)["parameters"] if row["spec"] is not None}
    expected = pruned_by_coreai("multihead_attention", config)
    print(f"\nmultihead_attention/{label}: prepare() {expected}, explain {said}")
    assert said == expected
    assert "attn.in_proj_weight" in expected

