"""Configs for test_size_fidelity.py: overlapping, nested, op-level, module_state_spec, null
and tied-weight cases, each sized by coreai-opt's bits_per_weight() after prepare()."""

from __future__ import annotations


def q(dtype: str, granularity=None, **extra) -> dict:
    spec = {"dtype": dtype}
    if granularity is not None:
        spec["granularity"] = granularity
    spec.update(extra)
    return spec


def qmodule(weight: dict | None, **tables) -> dict:
    """A module / op config of the eager Quantizer quantizing only its weights."""
    config = {"op_input_spec": None, "op_output_spec": None, "op_state_spec": {"weight": weight}}
    config.update(tables)
    return config


def quantizer(global_config, names=None, types=None) -> dict:
    root = {"execution_mode": "eager", "global_config": global_config}
    if types:
        root["module_type_configs"] = types
    if names:
        root["module_name_configs"] = names
    return {"quantization_config": root}


def pal(n_bits: int, **extra) -> dict:
    config = {"op_state_spec": {"weight": {"n_bits": n_bits, **extra}}}
    if extra.get("cluster_dim", 1) > 1:
        config["enable_fast_kmeans_mode"] = False  # coreai-opt refuses it with vectors
    return config


def palettizer(global_config, names=None, types=None) -> dict:
    root = {"global_config": global_config}
    if types:
        root["module_type_configs"] = types
    if names:
        root["module_name_configs"] = names
    return {"kmeans_palettization_config": root}


PER_CHANNEL = {"type": "per_channel"}
CONV = "torch.nn.modules.conv.Conv2d"
LINEAR = "torch.nn.modules.linear.Linear"

RESNET = [
    ("nested", quantizer(
        qmodule(q("int8", PER_CHANNEL)),
        types={CONV: qmodule(q("int4", {"type": "per_block", "block_size": 16})),
               "fixtures.resnet.BasicBlock": qmodule(q("uint6", PER_CHANNEL, qscheme="asymmetric"))},
        names={r"layer3\.0\.conv1": qmodule(q("int2")),  # before its parent: governs nothing
               "layer3": qmodule(q("uint8", {"type": "per_tensor"})),
               "layer1": qmodule(q("uint4", PER_CHANNEL), op_type_config={
                   "conv2d": qmodule(q("int6", PER_CHANNEL, qformulation="minval"))},
                   op_name_config={r"layer1\.0\.conv2\.conv2d": qmodule(q("int2", PER_CHANNEL))}),
               "fc": None})),
    ("module-state", quantizer(
        qmodule(q("int8", {"type": "per_tensor"})),
        names={"layer2": {"op_input_spec": None, "op_output_spec": None,
                          "op_state_spec": {"weight": q("int4", PER_CHANNEL)},
                          "module_state_spec": {"weight": q("uint2", PER_CHANNEL)}},
               r"layer4\.1": qmodule(None),
               "conv1": qmodule(q("float8_e4m3fn", PER_CHANNEL))})),
    ("palettized", palettizer(
        pal(4),
        types={CONV: pal(2, granularity={"type": "per_grouped_channel", "group_size": 16})},
        names={"layer4": pal(6, enable_per_channel_scale=True), r"layer4\.0\.conv2": None,
               "fc": pal(3)})),
]

LLAMA = [
    ("overlapping", quantizer(
        # RMSNorm scales are 1-D: per-channel has no default axis for them (prepare() refuses).
        qmodule(q("int8", {"type": "per_tensor"})),
        types={LINEAR: qmodule(q("int2"))},
        names={r"model\.layers\.1\.mlp\.down_proj": qmodule(q("uint2")),
               r"model\.layers\.\d+\.self_attn": qmodule(
                   q("int4", {"type": "per_block", "block_size": 8}),
                   op_name_config={r".*\.[qk]_proj\.linear": qmodule(q("uint4", PER_CHANNEL))}),
               r"model\.layers\.\d+\.mlp": qmodule(q("int6", PER_CHANNEL, qscheme="asymmetric")),
               r"model\.layers\.1\.mlp": qmodule(q("uint8", PER_CHANNEL)),
               r"model\.embed_tokens": None})),
    ("palettized", palettizer(
        pal(4),
        types={LINEAR: pal(3, granularity={"type": "per_grouped_channel", "group_size": 4})},
        names={r"model\.layers\.0": pal(2), "lm_head": pal(6, enable_per_channel_scale=True),
               r"model\.layers\.1\.mlp": None})),
    ("module-type-only", quantizer(
        None, types={LINEAR: qmodule(q("int4", {"type": "per_block", "block_size": 16,
                                                "axis": 1}), )})),
]

TIED = [
    ("tied-quantized", quantizer(qmodule(q("int8", PER_CHANNEL)),
                                 names={"lm_head": qmodule(q("int4", PER_CHANNEL))})),
    ("tied-palettized", palettizer(pal(4), names={"embed": pal(2), "mix": pal(3, cluster_dim=2)})),
]

CASES = [("resnet18", RESNET), ("hf_llama", LLAMA), ("tied_embedding", TIED)]
