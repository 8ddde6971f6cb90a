"""`opscope explain --json` against coreai-opt's prepare() on Hugging Face architectures, with
random overlapping configs drawn from each model's own named_modules(), containers that
forward() never calls among them (issue 22, item 0).

Hugging Face models hold their blocks in a ModuleList (`model.layers`, ViT's
`vit.encoder.layer`) that no forward() calls, so no graph node records it; coreai-opt's
build_module_config_dict walks named_modules() all the same, and a module-name key naming the
container (or a module type key naming ModuleList) configures every block under it. Each
config here holds a container key, a few other module-name keys (escaped names, `\\d+`
generalisations, prefixes) and type keys picked at random, every entry its own weight dtype,
in random order; explain must name, for every op prepare() annotates, the entry whose dtype
prepare() applied (test_resolve_fidelity.py's machinery). Seeds are fixed: a failure names
its seed and config."""

from __future__ import annotations

import json
import random
import re
import subprocess
import time

import pytest

from conftest import build_fixture_model
from test_resolve_fidelity import (compare_resolution, graph_index,  # noqa: F401 (fixture)
                                   prepared_node_dtypes, weight_only)

MODELS = ["hf_llama", "hf_vit", "hf_bert", "hf_gpt2"]
CONFIGS_PER_MODEL = 6
# Distinct weight dtypes: the dtype prepare() applies tells which entry won.
DTYPES = ["int4", "int6", "uint8", "uint4", "uint6", "int2", "uint2", "float8_e4m3fn",
          "float8_e5m2", "float4_e2m1fn_x2"]


def _fqn(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def containers(model) -> list[str]:
    """Modules with children that forward() does not call: ModuleList and ModuleDict."""
    import torch

    return [name for name, module in model.named_modules()
            if name and isinstance(module, (torch.nn.ModuleList, torch.nn.ModuleDict))]


def name_pattern(name: str, rng: random.Random) -> str:
    """A key that matches `name`: escaped, with layer numbers generalised, or as a prefix."""
    escaped = re.escape(name)
    form = rng.choice(["exact", "exact", "digits", "prefix"])
    if form == "digits" and re.search(r"\\\.\d+", escaped):
        return re.sub(r"\\\.\d+", r"\\.\\d+", escaped)
    if form == "prefix" and "." in name:
        return re.escape(name.rsplit(".", 1)[0]) + r"\..*"
    return escaped


def random_config(model, rng: random.Random) -> dict:
    named = [(name, module) for name, module in model.named_modules() if name]
    boxes = containers(model)
    dtypes = DTYPES[:]
    rng.shuffle(dtypes)
    names = {re.escape(rng.choice(boxes)): None}  # always a container key, written plainly
    if rng.random() < 0.5:  # and often one written as a user would write it for every block
        names[re.escape(rng.choice(boxes)) + r"(\..*)?"] = None
    for name, _ in rng.sample(named, min(len(named), rng.randint(2, 5))):
        names.setdefault(name_pattern(name, rng), None)
    entries = list(names)
    rng.shuffle(entries)
    module_name_configs = {}
    for key in entries:
        null = rng.random() < 0.1
        module_name_configs[key] = None if null else weight_only(dtypes.pop())
    types = sorted({_fqn(type(module)) for _, module in named})
    module_type_configs = {}
    for type_name in rng.sample(types, min(len(types), rng.randint(0, 2))):
        module_type_configs[type_name] = weight_only(dtypes.pop())
    if rng.random() < 0.5:  # a type key on the containers' class claims every block
        module_type_configs["torch.nn.modules.container.ModuleList"] = weight_only(dtypes.pop())
    config = {"global_config": weight_only("int8"), "module_name_configs": module_name_configs}
    if module_type_configs:
        config["module_type_configs"] = module_type_configs
    return {"quantization_config": config}


@pytest.mark.parametrize("name", MODELS)
def test_container_keys_as_prepare_applies_them(name, graph_index, opscope_bin, tmp_path,
                                                coreai_opt):
    index_path = graph_index(name)
    built = build_fixture_model(name)
    model = built[0]
    assert containers(model), f"{name} has no container: the test would prove nothing"
    agreed = total = by_container = 0
    started = time.monotonic()
    for seed in range(CONFIGS_PER_MODEL):
        rng = random.Random(f"{name}-{seed}")
        config = random_config(model, rng)
        config_path = tmp_path / f"{name}-{seed}.json"
        config_path.write_text(json.dumps(config, indent=2))
        proc = subprocess.run([opscope_bin, "explain", str(config_path), "--model", index_path,
                               "--json"], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        explained = json.loads(proc.stdout)
        shared: dict = {}
        actual = prepared_node_dtypes(name, config, shared, built=built, annotation_only=True)
        result = compare_resolution(config, explained, actual, shared)
        agreed += len(result.agree)
        total += len(actual)
        container_keys = {re.escape(box) for box in containers(model)}
        by_container += sum(1 for path in result.listed.values()
                            if len(path) == 3 and path[1] == "module_name_configs"
                            and path[2].split("(")[0] in container_keys)
        assert not (result.missing or result.extra or result.wrong or result.tied_wrong), (
            f"{name} seed {seed}: opscope's resolution differs from prepare():\n"
            f"config: {json.dumps(config['quantization_config'], indent=1)}\n"
            f"annotated by prepare(), not listed: {result.missing}\n"
            f"listed, not annotated: {result.extra}\n" + "\n".join(result.wrong + result.tied_wrong))
        # No entry that prepare() applies may be reported as matching nothing.
        applied = set(actual.values())
        for diagnostic in explained["diagnostics"]:
            if diagnostic["code"] == "no-match":
                key = diagnostic["message"].split("`")[1]
                dtype = (config["quantization_config"]["module_name_configs"].get(key)
                         or {}).get("op_state_spec", {}).get("weight", {}).get("dtype")
                assert dtype not in applied, f"{name} seed {seed}: {diagnostic['message']}"
    print(f"\n{name}: {CONFIGS_PER_MODEL} random configs with container keys, explain agrees "
          f"with prepare() on {agreed} of {total} annotated ops, {by_container} of them decided "
          f"by a container key ({time.monotonic() - started:.1f} s)")
    assert by_container, "no op was decided by a container key: the configs test nothing"
