"""Tied weights in eager mode (issue 10) against coreai-opt: GPT-2's `transformer.wte.weight`
is `lm_head.weight`, one tensor read by the embedding and by the LM head's linear. When two
entries would give it different specs, coreai-opt's StateSpecResolver keeps the spec of the
reader whose module ranks first in build_module_config_dict (name entries, then type entries,
then global; within one level the module claimed first, which is the LAST match in
named_modules() order), a module_state_spec of an owner before any op spec; then
register_all_states registers that one compressor on every owner. For each config below
(eager Quantizer, KMeans palettizer, MagnitudePruner), `opscope explain --json` must give the
tensor, under all its names, the spec prepare() registers; prepare() must register one and
the same compressor object on both names (compressed once); and where bits_per_weight()
applies, the projected size must count the tensor once, as it does. Runs in the fidelity_size
ctest (same session fixtures). Prints its times."""

from __future__ import annotations

import contextlib
import copy
import io
import json
import logging
import subprocess
import time

import pytest

from conftest import build_fixture_model

TIED = ("transformer.wte.weight", "lm_head.weight")
EMBEDDING = "torch.nn.modules.sparse.Embedding"
LINEAR = "torch.nn.modules.linear.Linear"


def q(dtype: str, **tables) -> dict:
    config = {"op_input_spec": None, "op_output_spec": None,
              "op_state_spec": {"weight": {"dtype": dtype, "granularity": {"type": "per_tensor"}}}}
    config.update(tables)
    return config


def quantizer(names=None, types=None, global_config=None) -> dict:
    root = {"execution_mode": "eager", "global_config": global_config or q("int8")}
    if types:
        root["module_type_configs"] = types
    if names:
        root["module_name_configs"] = names
    return {"quantization_config": root}


def pal(n_bits: int) -> dict:
    return {"op_state_spec": {"weight": {"n_bits": n_bits}}}


def prune(sparsity: float) -> dict:
    return {"op_state_spec": {"weight": {"target_sparsity": sparsity}}}


CASES = [
    # lm_head's key is written later, so it is applied first and ranks first, though the
    # embedding reads the tensor first: int4.
    ("quantizer-later-name-key", quantizer(names={r"transformer\.wte": q("uint2"),
                                                  "lm_head": q("int4")})),
    # The same keys the other way round: wte ranks first and lm_head's later read loses.
    ("quantizer-earlier-name-key", quantizer(names={"lm_head": q("int4"),
                                                    r"transformer\.wte": q("uint2")})),
    # One key claims both; reversed named_modules(): lm_head first, its linear's spec wins.
    ("quantizer-one-key-two-readers", quantizer(names={r"transformer\.wte|lm_head": q(
        "int8", op_type_config={"embedding": q("uint2"), "linear": q("int4")})})),
    # Global config: the same order over every module.
    ("quantizer-global", quantizer(global_config=q(
        "int8", op_type_config={"embedding": q("uint2"), "linear": q("int6")}))),
    # Type keys: the later Linear key is applied first.
    ("quantizer-type-keys", quantizer(types={EMBEDDING: q("uint2"), LINEAR: q("int4")})),
    # The palettizer registers no embedding: only lm_head's linear reads the tensor through a
    # registered op, but wte's module_state_spec reaches it first (6 bits, not 2).
    ("palettizer-module-state", {"kmeans_palettization_config": {
        "global_config": pal(4),
        "module_name_configs": {"lm_head": pal(2), r"transformer\.wte": {
            "module_state_spec": {"weight": {"n_bits": 6}}}}}}),
    ("palettizer-op-spec", {"kmeans_palettization_config": {
        "global_config": pal(4),
        "module_name_configs": {r"transformer\.wte": pal(6), "lm_head": pal(3)}}}),
    # A module-level spec on wte that names no weight: coreai-opt then runs wte's embedding
    # through the handler (unregistered, so with no op spec) and, wte ranking first, the
    # tensor resolves to nothing: lm_head's 2 bits never apply, the tensor stays dense.
    ("palettizer-module-level-spec-first", {"kmeans_palettization_config": {
        "global_config": pal(4),
        "module_name_configs": {"lm_head": pal(2), r"transformer\.wte": {
            "module_state_spec": {"bias": {"n_bits": 6}}}}}}),
    ("pruner-module-state", {"magnitude_pruning_config": {
        "global_config": prune(0.11),
        "module_name_configs": {"lm_head": prune(0.7), r"transformer\.wte": {
            "module_state_spec": {"weight": {"target_sparsity": 0.6}}}}}}),
]


@pytest.fixture(scope="module")
def gpt2_eager_index(fixture_archive, inspect_worker, tmp_path_factory):
    path = str(tmp_path_factory.mktemp("tied") / "hf_gpt2.eager.json")
    proc = subprocess.run([inspect_worker, fixture_archive("hf_gpt2"), "--mode", "eager",
                           "-o", path], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return path


def spec_value(root: str, spec) -> object:
    """What distinguishes the entries' specs: the dtype, the n_bits, the target sparsity."""
    if spec is None:
        return None
    if root == "quantization_config":
        return spec["dtype"]
    if root == "kmeans_palettization_config":
        return spec.get("n_bits", 4)
    return spec["target_sparsity"]


def compressor_value(root: str, chain) -> tuple[object, object]:
    """(the compressor object on a tensor's parametrization chain, its spec value)."""
    from coreai_opt.palettization.spec.fake_palettize import _FakePalettizeImplBase
    from coreai_opt.pruning.spec import PruneImplBase
    from coreai_opt.quantization.spec.fake_quantize import FakeQuantizeImplBase

    for impl in chain:
        if root == "quantization_config" and isinstance(impl, FakeQuantizeImplBase):
            return impl, str(impl.dtype).removeprefix("torch.")
        if root == "kmeans_palettization_config" and isinstance(impl, _FakePalettizeImplBase):
            return impl, impl.n_bits
        if root == "magnitude_pruning_config" and isinstance(impl, PruneImplBase):
            return impl, impl._target_sparsity
    return None, None


def prepared_by_coreai(config: dict):
    """{tensor name: (compressor object, spec value)} for the tied names, and
    bits_per_weight() of the prepared model (None for the pruner: it cannot size it)."""
    from torch.nn.utils import parametrize

    from coreai_opt.inspection import bits_per_weight
    from coreai_opt.palettization import KMeansPalettizer, KMeansPalettizerConfig
    from coreai_opt.pruning import MagnitudePruner, MagnitudePrunerConfig
    from coreai_opt.quantization import Quantizer, QuantizerConfig

    root = next(iter(config))
    make = {"quantization_config": (Quantizer, QuantizerConfig),
            "kmeans_palettization_config": (KMeansPalettizer, KMeansPalettizerConfig),
            "magnitude_pruning_config": (MagnitudePruner, MagnitudePrunerConfig)}[root]
    model, args = build_fixture_model("hf_gpt2")
    logging.disable(logging.WARNING)
    try:
        with contextlib.redirect_stderr(io.StringIO()):  # the palettizer's progress bar
            prepared = make[0](model, make[1].from_dict(copy.deepcopy(config))).prepare(args)
    finally:
        logging.disable(logging.NOTSET)
    modules = dict(prepared.named_modules())
    out = {}
    for name in TIED:
        owner, attr = name.rsplit(".", 1)
        module = modules[owner]
        chain = module.parametrizations[attr] if parametrize.is_parametrized(module, attr) else []
        out[name] = compressor_value(root, chain)
    size = None if root == "magnitude_pruning_config" else bits_per_weight(prepared)
    return out, size


@pytest.mark.parametrize("label,config", CASES, ids=[label for label, _ in CASES])
def test_a_tied_tensor_gets_the_spec_prepare_registers_once(label, config, gpt2_eager_index,
                                                            opscope_bin, tmp_path, coreai_opt):
    root = next(iter(config))
    config_path = tmp_path / f"{label}.json"
    config_path.write_text(json.dumps(config, indent=2))
    started = time.monotonic()
    proc = subprocess.run([opscope_bin, "explain", str(config_path), "--model", gpt2_eager_index,
                           "--json"], capture_output=True, text=True, timeout=60)
    explain_seconds = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr
    explained = json.loads(proc.stdout)

    started = time.monotonic()
    expected, size = prepared_by_coreai(config)
    prepare_seconds = time.monotonic() - started

    rows = [row for row in explained["parameters"] if set(TIED) <= set(row["names"])]
    assert len(rows) == 1, f"explain lists the tied tensor {len(rows)} times: {rows}"
    row = rows[0]
    said = spec_value(root, row["spec"])
    coreai = {name: value for name, (_, value) in expected.items()}
    print(f"\n{label}: opscope {said} via {row['entry'] and row['entry']['path'][-1]}, "
          f"prepare() {coreai}; explain {explain_seconds:.2f} s, prepare {prepare_seconds:.1f} s")
    # One compressor object for every name of the tensor: compressed once, with one spec.
    impls = {name: impl for name, (impl, _) in expected.items()}
    assert impls[TIED[0]] is impls[TIED[1]], impls
    assert all(value == said for value in coreai.values()), (
        f"{label}: opscope gives the tied tensor {said}, prepare() {coreai}")
    # The entry explain names holds that spec, and every reader is listed.
    if row["entry"] is not None and row["spec_key"]:
        node = config
        for step in row["entry"]["path"]:
            node = node[step]
        assert spec_value(root, node[row["spec_table"]][row["spec_key"]]) == said, row
    if root == "quantization_config":
        assert {r["module"] for r in row["read_by"]} == {"transformer.wte", "lm_head"}, row
    if size is not None:
        projected = explained["size"]
        assert "unavailable" not in projected, projected
        assert projected["bits"]["after"] == size.total_bits
        assert projected["weights"] == size.total_weights
        # Counted once, under the module bits_per_weight attributes it to.
        assert projected["modules"]["transformer.wte"] == pytest.approx(
            size.per_module_map["transformer.wte"], abs=1e-6)
        assert "lm_head" not in projected["modules"] and "lm_head" not in size.per_module_map


# The module-level counterpart: a module registered under two names (aliased_module's
# `shortcut` is `encoder[0]`). build_module_config_dict tests every name of a module object,
# so a key naming only the alias configures the object; in eager mode no call carries that
# name (the hooks use the canonical one), and `opscope check` must still not call it no-match.
ALIAS_PALETTIZED = {"kmeans_palettization_config": {
    "global_config": pal(4),
    "module_name_configs": {"shortcut": pal(2), "head": pal(3)}}}


def test_a_key_naming_only_an_alias_configures_the_module(fixture_archive, inspect_worker,
                                                         opscope_bin, tmp_path, coreai_opt):
    from torch.nn.utils import parametrize

    from coreai_opt.palettization import KMeansPalettizer, KMeansPalettizerConfig

    index_path = str(tmp_path / "aliased_module.eager.json")
    proc = subprocess.run([inspect_worker, fixture_archive("aliased_module"), "--mode", "eager",
                           "-o", index_path], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    config_path = tmp_path / "alias.json"
    config_path.write_text(json.dumps(ALIAS_PALETTIZED, indent=2))

    model, args = build_fixture_model("aliased_module")
    with contextlib.redirect_stderr(io.StringIO()):
        prepared = KMeansPalettizer(model, KMeansPalettizerConfig.from_dict(
            copy.deepcopy(ALIAS_PALETTIZED))).prepare(args)
    modules = dict(prepared.named_modules())
    coreai = {f"{name}.weight": compressor_value("kmeans_palettization_config",
                                                 modules[name].parametrizations["weight"])[1]
              for name in ("encoder.0", "encoder.2", "head")
              if parametrize.is_parametrized(modules[name], "weight")}
    assert coreai["encoder.0.weight"] == 2, coreai  # the alias key's spec

    checked = subprocess.run([opscope_bin, "check", str(config_path), "--model", index_path,
                              "--format", "json"], capture_output=True, text=True, timeout=60)
    codes = [json.loads(line)["code"] for line in checked.stdout.splitlines() if line.strip()]
    assert "no-match" not in codes, checked.stdout

    explained = subprocess.run([opscope_bin, "explain", str(config_path), "--model", index_path,
                                "--json"], capture_output=True, text=True, timeout=60)
    assert explained.returncode == 0, explained.stderr
    said = {row["parameter"]: spec_value("kmeans_palettization_config", row["spec"])
            for row in json.loads(explained.stdout)["parameters"]}
    print(f"\naliased_module: prepare() {coreai}, explain {said}")
    assert {name: said.get(name) for name in coreai} == coreai
