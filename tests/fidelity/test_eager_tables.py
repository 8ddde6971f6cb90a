"""The eager compressor tables compiled into opscope (core/dialects/coreai/tables/src/compressors.cpp)
equal the registries of the installed coreai-opt: same functions, same registered types.
A coreai-opt upgrade that registers a new op fails here, naming it."""

from __future__ import annotations

import torch

from compiled_tables import compiled_tables, pairs


def compiled_eager_tables() -> dict[str, set[tuple[str, str]]]:
    return {name: pairs(entry["eager"]) for name, entry in compiled_tables().items()}


def registry_table(registry) -> set[tuple[str, str]]:
    return {
        (torch.overrides.resolve_name(func), op_type)
        for op_type, entry in registry.REGISTRY.items()
        for func in (getattr(entry, "ops", None) or [])
    }


def test_tables_equal_coreai_opt_registries():
    from coreai_opt.palettization.kmeans.supported_ops_registry import (
        _KMeansPalettizerSupportedOpsRegistry,
    )
    from coreai_opt.pruning.supported_ops_registry import _PrunerSupportedOpsRegistry
    from coreai_opt.quantization._eager.supported_ops_registry import (
        EagerQuantizerSupportedOpsRegistry,
    )

    compiled = compiled_eager_tables()
    assert compiled.get("quantizer") == registry_table(EagerQuantizerSupportedOpsRegistry)
    assert compiled.get("kmeans_palettizer") == registry_table(_KMeansPalettizerSupportedOpsRegistry)
    assert compiled.get("magnitude_pruner") == registry_table(_PrunerSupportedOpsRegistry)


def test_registered_functions_have_one_name_each():
    """The tables key functions by resolve_name; that is only sound if no two registered
    function objects share a name."""
    from coreai_opt.quantization._eager.supported_ops_registry import (
        EagerQuantizerSupportedOpsRegistry,
    )

    funcs = [f for e in EagerQuantizerSupportedOpsRegistry.REGISTRY.values() for f in e.ops]
    names = [torch.overrides.resolve_name(f) for f in funcs]
    assert None not in names
    assert len(set(names)) == len(set(map(id, funcs)))
