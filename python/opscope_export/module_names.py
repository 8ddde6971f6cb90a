"""The model's ``named_modules()``, as coreai-opt matches module-name keys against them.

coreai-opt 0.4.0 (config/compression_config.py, ``_build_module_alias_map`` and
``build_module_config_dict``) walks every module object of ``named_modules()``, called or not
(a ``ModuleList`` such as ``model.layers`` is never called, yet a key naming it configures
every block), names each by its first name (the canonical name), matches a
``module_name_configs`` key against every name of the object (``self.shortcut =
self.encoder[0]``, wrappers hoisting a backbone's children), and claims an object's children
through ``named_children()`` (alias paths included). The graph (``nn_module_stack``) holds only
the calls, under the path each went through, so the archive carries the object table
alongside it: ``<archive>/extra/opscope_modules.json``.

PEFT tests module classes with ``isinstance`` (what LoRA can wrap, what ``all-linear`` takes:
``NonDynamicallyQuantizableLinear`` is a ``Linear``), so each object also carries its class's
bases (``mro``: the MRO between the class and ``torch.nn.Module``, both excluded; omitted when
empty), the root Hugging Face model's ``config.model_type`` (PEFT's default targets are keyed by it)
and which module the root model's ``get_output_embeddings()`` returns (``all-linear`` leaves
it out). Readers that predate these optional members ignore them.
"""

from __future__ import annotations

import json

# Name of the record inside the archive (`<archive>/extra/opscope_modules.json`).
MODULES_FILE_NAME = "opscope_modules.json"
MODULES_FORMAT = "opscope-modules"
MODULES_VERSION = 1


def _fqn(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _bases(cls: type) -> list[str]:
    """The class's MRO between itself and torch.nn.Module (both excluded): what isinstance
    sees besides the type."""
    import torch

    return [
        _fqn(base)
        for base in cls.__mro__[1:]
        if issubclass(base, torch.nn.Module) and base is not torch.nn.Module
    ]


def _output_embeddings(model):
    """The module the root model's get_output_embeddings() returns (transformers), else None."""
    getter = getattr(model, "get_output_embeddings", None)
    if getter is None or not hasattr(getattr(model, "config", None), "model_type"):
        return None
    try:
        return getter()
    except Exception:  # a model whose head cannot be found: nothing to leave out
        return None


def module_table(model) -> dict:
    """Every module object in named_modules() order: its canonical name, type, other names
    and its named_children() (indices into the table), with the facts PEFT reads (bases,
    model_type, output embeddings)."""
    index_of: dict[int, int] = {}
    modules: list[dict] = []
    output_embeddings = _output_embeddings(model)
    for name, module in model.named_modules():
        index_of[id(module)] = len(modules)
        entry = {"name": name, "type": _fqn(type(module))}
        if bases := _bases(type(module)):
            entry["mro"] = bases
        if module is model:  # PEFT reads the root's config only
            model_type = getattr(getattr(module, "config", None), "model_type", None)
            if isinstance(model_type, str) and model_type:
                entry["model_type"] = model_type
        if output_embeddings is not None and module is output_embeddings:
            entry["output_embeddings"] = True
        modules.append(entry)
    for name, module in model.named_modules(remove_duplicate=False):
        entry = modules[index_of[id(module)]]
        if entry["name"] != name:
            entry.setdefault("aliases", []).append(name)
    for entry, (_, module) in zip(modules, model.named_modules()):
        entry["children"] = [index_of[id(child)] for child in module.children()]
    return {"format": MODULES_FORMAT, "version": MODULES_VERSION, "modules": modules}


def module_extra_files(model) -> dict[str, str]:
    """`extra_files` for torch.export.save carrying the table."""
    return {MODULES_FILE_NAME: json.dumps(module_table(model), separators=(",", ":"))}
