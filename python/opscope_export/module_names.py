"""The names coreai-opt gives a model's modules when one module object is registered under
several names (``self.shortcut = self.encoder[0]``, wrappers hoisting a backbone's children).

coreai-opt 0.4.0 (config/compression_config.py, ``_build_module_alias_map`` and
``build_module_config_dict``) names every module object by its first name in
``named_modules()`` order (the canonical name), matches a ``module_name_configs`` key against
every name of the object, and claims an object's children through ``named_children()``
(alias paths included). The graph (``nn_module_stack``) names a call by the path it went
through, so the archive carries the object table alongside it:
``<archive>/extra/opscope_modules.json``. Written only when some module has a second name:
without aliases the graph's names are already the canonical ones.
"""

from __future__ import annotations

import json

# Name of the record inside the archive (`<archive>/extra/opscope_modules.json`).
MODULES_FILE_NAME = "opscope_modules.json"
MODULES_FORMAT = "opscope-modules"
MODULES_VERSION = 1


def _fqn(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def module_table(model) -> dict | None:
    """Every module object in named_modules() order: its canonical name, type, other names
    and its named_children() (indices into the table); None when no object has two names."""
    index_of: dict[int, int] = {}
    modules: list[dict] = []
    for name, module in model.named_modules():
        index_of[id(module)] = len(modules)
        modules.append({"name": name, "type": _fqn(type(module))})
    has_alias = False
    for name, module in model.named_modules(remove_duplicate=False):
        entry = modules[index_of[id(module)]]
        if entry["name"] != name:
            entry.setdefault("aliases", []).append(name)
            has_alias = True
    if not has_alias:
        return None
    for entry, (_, module) in zip(modules, model.named_modules()):
        entry["children"] = [index_of[id(child)] for child in module.children()]
    return {"format": MODULES_FORMAT, "version": MODULES_VERSION, "modules": modules}


def module_extra_files(model) -> dict[str, str]:
    """`extra_files` for torch.export.save carrying the table (empty without aliases)."""
    table = module_table(model)
    return {} if table is None else {MODULES_FILE_NAME: json.dumps(table, separators=(",", ":"))}
