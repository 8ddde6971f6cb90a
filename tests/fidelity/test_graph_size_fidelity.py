"""The projected size of graph-mode Quantizer configs (issue 24) against coreai-opt's own
graph-mode prepare(). coreai-opt's bits_per_weight() refuses a prepared GraphModule
("Graph mode prepared models are not supported currently"), so the judge reads what
`Quantizer(model, QuantizerConfig.from_dict(config)).prepare(args)` built: every weight
fake-quant it left in the graph (a call_module FakeQuantizeImplBase whose
quantization_target is WEIGHT), the tensor it reads (followed back to its get_attr: the conv-bn
fusion puts a mul in between), and sizes the model as bits_per_weight() sizes an eager one:
each such tensor at coreai-opt's own _quantized_bits(tensor, fake_quant) (its dtype, scale and
zero point storage from the materialised scale), every other parameter and buffer at full
precision, a tied tensor once. `opscope explain --json`'s "size" must give exactly those bits,
weights and per-module bits per weight.

Models: the ResNet-18-like fixture (conv-bn-relu), a tiny Llama (RMSNorm's mul, embedding and a
separate head) and GPT-2 from transformers configs (the embedding tied to the head, Conv1D's
addmm quantized by nothing). Configs: those of the resolution tests (test_resolve_fidelity.py)
and of the eager size tests (size_cases.py, run in graph mode) on these models, and the
example's style (default activation specs, a per-channel weight spec, a null type key).

And where coreai-opt can report it: the same config run eagerly (execution_mode: eager), whose
bits_per_weight() is coreai-opt's own number. Where eager prepare() compresses the same tensors
with the same storage as graph prepare() (one model and config at least per model), opscope's
graph number must equal bits_per_weight()'s; where the modes differ (eager quantizes a batch
norm's weight, graph folds it into the conv), the test prints which tensors differ.
One prepare() per mode and config; prints the times."""

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
from size_cases import LLAMA as SIZE_LLAMA, RESNET as SIZE_RESNET, q, qmodule
from test_resolve_fidelity import (GPT2_CONV1D, GPT2_TIED, LLAMA_SHADOWED, RESNET18_PATTERNS,
                                   graph_index)

PER_CHANNEL = {"type": "per_channel"}


def in_graph_mode(config: dict) -> dict:
    """A size_cases.py config (written for execution_mode: eager) as graph mode runs it."""
    config = copy.deepcopy(config)
    config["quantization_config"].pop("execution_mode", None)
    return config


# The example's shape (examples/resnet/quant.yaml): activation specs left at their defaults, a
# per-channel int8 weight spec, a subtree entry and a null type key.
EXAMPLE_STYLE = {"quantization_config": {
    "global_config": {"op_state_spec": {"weight": q("int8", PER_CHANNEL)}},
    "module_name_configs": {r"layer1\..*": {"op_state_spec": {"weight": q("int4", PER_CHANNEL)}}},
    "module_type_configs": {"torch.nn.modules.linear.Linear": None},
}}

# GPT-2: the tied wte / lm_head per channel (the embedding and the linear both default axis 0),
# wpe per block.
GPT2_PER_CHANNEL = {"quantization_config": {
    "global_config": qmodule(q("int4", PER_CHANNEL)),
    "module_name_configs": {
        "lm_head": qmodule(q("uint8", PER_CHANNEL, qscheme="asymmetric")),
        r"transformer\.wpe": qmodule(q("int4", {"type": "per_block", "block_size": 8})),
    },
}}

# Every state the primary op reads: biases too, buffers (Llama's rotary inv_freq) too, never
# the states of a pattern's other members (the bn after a conv).
EVERY_STATE = {"quantization_config": {
    "global_config": {"op_input_spec": None, "op_output_spec": None,
                      "op_state_spec": {"*": q("int8")}},
}}

CASES = [
    ("resnet18", "patterns", RESNET18_PATTERNS),
    ("resnet18", "example-style", EXAMPLE_STYLE),
    ("resnet18", "every-state", EVERY_STATE),
    *[("resnet18", f"size-{label}", in_graph_mode(config)) for label, config in SIZE_RESNET
      if "quantization_config" in config],
    ("hf_llama", "shadowed", LLAMA_SHADOWED),
    ("hf_llama", "every-state", EVERY_STATE),
    *[("hf_llama", f"size-{label}", in_graph_mode(config)) for label, config in SIZE_LLAMA
      if "quantization_config" in config],
    ("hf_gpt2", "conv1d", GPT2_CONV1D),
    ("hf_gpt2", "tied", GPT2_TIED),
    ("hf_gpt2", "tied-per-channel", GPT2_PER_CHANNEL),
]


def _tensors(model) -> tuple[dict, dict]:
    """(name -> tensor, id -> first name) over named_parameters() then named_buffers()."""
    by_name, first_name = {}, {}
    for named in (model.named_parameters(remove_duplicate=False),
                  model.named_buffers(remove_duplicate=False)):
        for name, tensor in named:
            by_name[name] = tensor
            first_name.setdefault(id(tensor), name)
    return by_name, first_name


def _owner_bits(model, bits_of: dict) -> dict:
    """bits_per_weight()'s walk: every tensor once, under the first module owning it."""
    seen, bits, weights = set(), {}, {}
    for module_name, module in model.named_modules():
        owned = [*module.parameters(recurse=False), *module.buffers(recurse=False)]
        for tensor in owned:
            if id(tensor) in seen:
                continue
            seen.add(id(tensor))
            bits[module_name] = bits.get(module_name, 0) + bits_of(tensor)
            weights[module_name] = weights.get(module_name, 0) + tensor.numel()
    return {"bits": sum(bits.values()), "weights": sum(weights.values()),
            "modules": {name: bits[name] / weights[name] for name in bits if weights[name]}}


def _state_of(node):
    """The get_attr a weight fake-quant reads, through the ops in between (conv-bn fusion
    scales the weight: get_attr -> mul -> fake-quant)."""
    while node.op != "get_attr":
        node = node.args[0]
    return node


def graph_prepare_size(name: str, config: dict) -> dict:
    """coreai-opt's graph-mode prepare(), sized from its weight fake-quants: {"bits",
    "weights", "modules", "compressed": {first name: bits}, "seconds"}."""
    from coreai_opt.config.spec import CompressionTargetTensor
    from coreai_opt.inspection import _bpw_utils
    from coreai_opt.quantization import Quantizer, QuantizerConfig
    from coreai_opt.quantization.spec.fake_quantize import FakeQuantizeImplBase

    model, args = build_fixture_model(name)
    by_name, first_name = _tensors(model)
    started = time.monotonic()
    logging.disable(logging.WARNING)  # "multiple spec keys matched" and the like
    try:
        prepared = Quantizer(model, QuantizerConfig.from_dict(copy.deepcopy(config))).prepare(args)
    finally:
        logging.disable(logging.NOTSET)
    seconds = time.monotonic() - started
    modules = dict(prepared.named_modules(remove_duplicate=False))
    compressed: dict[int, int] = {}
    for node in prepared.graph.nodes:
        fake_quant = modules.get(str(node.target)) if node.op == "call_module" else None
        if (not isinstance(fake_quant, FakeQuantizeImplBase)
                or fake_quant.quantization_target != CompressionTargetTensor.WEIGHT):
            continue
        tensor = by_name[str(_state_of(node.args[0]).target)]
        assert tuple(node.args[0].meta["val"].shape) == tuple(tensor.shape), node.name
        tensor_name = first_name[id(tensor)]
        _bpw_utils.ensure_supported_quantization(fake_quant, *tensor_name.rpartition(".")[::2])
        bits = _bpw_utils._quantized_bits(tensor, fake_quant)
        # One tensor, one storage: several fake-quants of it must agree (a tied weight shares one).
        assert compressed.setdefault(id(tensor), bits) == bits, f"{tensor_name}: two sizes"
    sized = _owner_bits(model, lambda t: compressed.get(id(t), _bpw_utils.full_precision_bits(t)))
    sized["compressed"] = {first_name[t]: bits for t, bits in compressed.items()}
    sized["seconds"] = seconds
    return sized


def eager_prepare_size(name: str, config: dict) -> tuple[object, dict]:
    """The same config run eagerly: (bits_per_weight(), {first name: bits} of every tensor it
    compressed)."""
    from torch.nn.utils import parametrize

    from coreai_opt.inspection import _bpw_utils, bits_per_weight
    from coreai_opt.quantization import Quantizer, QuantizerConfig

    config = copy.deepcopy(config)
    config["quantization_config"]["execution_mode"] = "eager"
    model, args = build_fixture_model(name)
    _, first_name = _tensors(model)
    logging.disable(logging.WARNING)
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            prepared = Quantizer(model, QuantizerConfig.from_dict(config)).prepare(args)
    finally:
        logging.disable(logging.NOTSET)
    compressed = {}
    for _, module in prepared.named_modules():
        if parametrize.is_parametrized(module):
            for chain in module.parametrizations.values():
                found = _bpw_utils.get_weight_compressor(chain)
                if found is not None and id(chain.original) in first_name:
                    compressed[first_name[id(chain.original)]] = _bpw_utils.tensor_storage_bits(
                        chain.original, found)
    return bits_per_weight(prepared), compressed


EAGER_AGREEMENT: dict[str, list[str]] = {}  # model -> configs whose eager bpw was compared


@pytest.mark.parametrize("name,label,config", CASES, ids=[f"{n}-{l}" for n, l, _ in CASES])
def test_graph_size_is_what_prepare_inserts(name, label, config, graph_index, opscope_bin,
                                            tmp_path, coreai_opt):
    config_path = tmp_path / f"{label}.json"
    config_path.write_text(json.dumps(config, indent=2))
    index_path = graph_index(name)  # exported once per model
    started = time.monotonic()
    proc = subprocess.run([opscope_bin, "explain", str(config_path), "--model", index_path,
                           "--json"], capture_output=True, text=True, timeout=60)
    explain_seconds = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr
    size = json.loads(proc.stdout)["size"]
    assert "unavailable" not in size, size

    expected = graph_prepare_size(name, config)
    print(f"\n{name}/{label}: opscope {size['bits_per_weight']['after']:.4f} bpw, graph "
          f"prepare() {expected['bits'] / expected['weights']:.4f} bpw "
          f"({len(expected['compressed'])} weight fake-quants); explain {explain_seconds:.2f} s, "
          f"prepare {expected['seconds']:.1f} s")
    assert size["weights"] == expected["weights"]
    assert size["bits"]["after"] == expected["bits"]
    assert size["bits_per_weight"]["after"] < size["bits_per_weight"]["before"]
    assert set(size["modules"]) == set(expected["modules"])
    wrong = {m: (size["modules"][m], bpw) for m, bpw in expected["modules"].items()
             if size["modules"][m] != pytest.approx(bpw, abs=1e-9)}
    assert not wrong, f"per-module bits per weight (opscope, prepare()): {wrong}"

    # coreai-opt's own number for the same config run eagerly, where the two modes store the
    # same tensors the same way.
    if "op_name_config" in json.dumps(config):
        return  # graph node names mean other ops in eager mode
    started = time.monotonic()
    eager, eager_compressed = eager_prepare_size(name, config)
    differ = sorted(n for n in set(eager_compressed) | set(expected["compressed"])
                    if eager_compressed.get(n) != expected["compressed"].get(n))
    print(f"  eager bits_per_weight() {eager.bpw:.4f} bpw "
          f"({time.monotonic() - started:.1f} s); "
          + (f"the modes store differently: {differ}" if differ else "same storage as graph"))
    if not differ:
        EAGER_AGREEMENT.setdefault(name, []).append(label)
        assert size["bits"]["after"] == eager.total_bits
        assert size["weights"] == eager.total_weights


def test_bits_per_weight_was_compared_on_every_model():
    """The eager comparison above is not vacuous: for every model, some config stores the same
    in both modes and was held to bits_per_weight()."""
    models = {name for name, _, _ in CASES}
    assert set(EAGER_AGREEMENT) == models, EAGER_AGREEMENT
