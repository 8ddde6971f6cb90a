"""The compressor table compiled into opscope (core/dialects/coreai/tables/src/compressors.cpp) equals what
the installed coreai-opt defines: each compressor's config root key and spec section, the
execution modes it runs in, and its graph-mode registries. (The eager registries:
test_eager_tables.py.) A coreai-opt release that changes any of them fails here, naming
what differs."""

from __future__ import annotations

import importlib

import torch

from compiled_tables import compiled_tables, pairs

# opscope's name -> (config module, root-key constant, spec-key constant, registry)
COMPRESSORS = {
    "quantizer": ("coreai_opt.quantization.config.quantization_config",
                  "_QUANTIZATION_CONFIG", "_QUANTIZATION_SPEC"),
    "kmeans_palettizer": ("coreai_opt.palettization.config.palettization_config",
                          "_KMEANS_PALETTIZATION_CONFIG", "_PALETTIZATION_SPEC"),
    "magnitude_pruner": ("coreai_opt.pruning.config.magnitude_pruner_config",
                         "_MAGNITUDE_PRUNING_CONFIG", "_PRUNING_SPEC"),
}


def test_every_compressor_has_its_coreai_opt_root_and_spec_keys():
    compiled = compiled_tables()
    assert set(compiled) == set(COMPRESSORS)
    for name, (module, root_const, spec_const) in COMPRESSORS.items():
        config = importlib.import_module(module)
        assert compiled[name]["root_key"] == getattr(config, root_const), name
        assert compiled[name]["spec_key"] == getattr(config, spec_const), name


def test_modes_are_the_ones_coreai_opt_runs_each_compressor_in():
    """Only the Quantizer has an execution_mode (graph by default); the palettizer and the
    pruner always run eagerly (their config has no such field)."""
    from coreai_opt.palettization.config.palettization_config import KMeansPalettizerConfig
    from coreai_opt.pruning.config.magnitude_pruner_config import MagnitudePrunerConfig
    from coreai_opt.quantization.config.quantization_config import QuantizerConfig

    def modes(config_class) -> list[str]:
        field = config_class.model_fields.get("execution_mode")
        if field is None:
            return ["eager"]
        return sorted(mode.value for mode in type(field.default))

    compiled = compiled_tables()
    assert sorted(compiled["quantizer"]["modes"]) == modes(QuantizerConfig)
    assert compiled["kmeans_palettizer"]["modes"] == modes(KMeansPalettizerConfig)
    assert compiled["magnitude_pruner"]["modes"] == modes(MagnitudePrunerConfig)


def graph_quantizer_registry() -> tuple[set[str], set[str]]:
    """(aten targets, op types) the graph Quantizer's annotation patterns select: a weighted
    pattern selects its weighted op (the pattern graph's first call), a sequential pattern
    its first op type."""
    from coreai_opt.quantization._graph._annotation_pattern_registry import (
        NAryActPattern,
        SharedObserverModulePattern,
        WeightedModulePattern,
        _AnnotationPatternRegistry,
    )

    targets: set[str] = set()
    op_types: set[str] = set()
    for name, pattern_class in _AnnotationPatternRegistry.REGISTRY.items():
        if issubclass(pattern_class, WeightedModulePattern):
            for graph in pattern_class.get_patterns():
                calls = [n for n in graph.graph.nodes if n.op == "call_function"]
                targets.add("torch.ops." + str(calls[0].target))
        elif issubclass(pattern_class, (NAryActPattern, SharedObserverModulePattern)):
            for ops in pattern_class.get_patterns():
                first = ops.pattern[0]
                assert isinstance(first, str), f"{name}: pattern starts with {first!r}"
                op_types.add(first)
        else:
            raise AssertionError(f"{name}: a new kind of annotation pattern "
                                 f"({pattern_class.__mro__[1].__name__}); teach opscope it")
    return targets, op_types


def test_graph_quantizer_table_equals_the_annotation_patterns():
    targets, op_types = graph_quantizer_registry()
    graph = compiled_tables()["quantizer"]["graph"]
    assert set(graph["aten_targets"]) == targets
    assert set(graph["op_types"]) == op_types
    assert graph["functions"] == []


def test_graph_pruner_table_is_the_pruner_registry_by_function_name():
    """coreai-opt prunes eagerly; in a graph, a registered function's nodes carry its name as
    op type (torch_fn `function.multi_head_attention_forward`) and are filed under the
    registry's type, as in eager mode (`multi_head_attention`)."""
    from coreai_opt.pruning.supported_ops_registry import _PrunerSupportedOpsRegistry

    registry = {
        (torch.overrides.resolve_name(func), op_type)
        for op_type, entry in _PrunerSupportedOpsRegistry.REGISTRY.items()
        for func in (getattr(entry, "ops", None) or [])
    }
    compiled = compiled_tables()["magnitude_pruner"]
    assert pairs(compiled["graph"]["functions"]) == registry
    assert compiled["graph"]["aten_targets"] == [] and compiled["graph"]["op_types"] == []
    # opscope names a function's graph op type by the last part of its resolved name.
    for op_type, entry in _PrunerSupportedOpsRegistry.REGISTRY.items():
        for func in entry.ops:
            assert torch.overrides.resolve_name(func).rsplit(".", 1)[-1] == func.__name__
    attention = torch.nn.functional.multi_head_attention_forward
    assert _PrunerSupportedOpsRegistry.get_func_type(attention) == "multi_head_attention"


def test_multi_head_attention_nodes_carry_the_function_name_in_a_graph():
    """What the graph pruner table relies on: torch.export records every node of an
    nn.MultiheadAttention call with torch_fn `function.multi_head_attention_forward`."""

    class Attention(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = torch.nn.MultiheadAttention(8, 2, batch_first=True)

        def forward(self, x):
            return self.attn(x, x, x, need_weights=False)[0]

    program = torch.export.export(Attention().eval(), (torch.randn(1, 3, 8),))
    linears = [n for n in program.graph.nodes if n.op == "call_function"
               and n.target == torch.ops.aten.linear.default]
    assert linears
    for node in linears:
        assert node.meta["torch_fn"][1] == "function.multi_head_attention_forward"
