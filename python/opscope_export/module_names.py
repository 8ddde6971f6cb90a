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
"""

from __future__ import annotations

import json

# Name of the record inside the archive (`<archive>/extra/opscope_modules.json`).
MODULES_FILE_NAME = "opscope_modules.json"
MODULES_FORMAT = "opscope-modules"
MODULES_VERSION = 1


def _fqn(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def module_table(model) -> dict:
    """Every module object in named_modules() order: its canonical name, type, other names
    and its named_children() (indices into the table)."""
    index_of: dict[int, int] = {}
    modules: list[dict] = []
    for name, module in model.named_modules():
        index_of[id(module)] = len(modules)
        modules.append({"name": name, "type": _fqn(type(module))})
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
