"""The eager compressor tables compiled into opscope (core/inspect/src/eager_compressor_tables.cpp)
equal the registries of the installed coreai-opt: same functions, same registered types.
A coreai-opt upgrade that registers a new op fails here, naming it."""

from __future__ import annotations

import os
import re

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
TABLES = os.path.join(os.path.dirname(os.path.dirname(HERE)), "core", "inspect", "src",
                      "eager_compressor_tables.cpp")


def compiled_tables() -> dict[str, set[tuple[str, str]]]:
    tables: dict[str, set[tuple[str, str]]] = {}
    current = None
    with open(TABLES, encoding="utf-8") as f:
        for line in f:
            start = re.match(r"constexpr std::array k(\w+) = \{", line.strip())
            if start:
                current = tables.setdefault(start.group(1), set())
                continue
            entry = re.match(r'Entry\{"([^"]+)", "([^"]+)"\}', line.strip())
            if entry and current is not None:
                current.add((entry.group(1), entry.group(2)))
    return tables


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

    compiled = compiled_tables()
    assert compiled.get("Quantizer") == registry_table(EagerQuantizerSupportedOpsRegistry)
    assert compiled.get("KMeansPalettizer") == registry_table(_KMeansPalettizerSupportedOpsRegistry)
    assert compiled.get("MagnitudePruner") == registry_table(_PrunerSupportedOpsRegistry)


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
