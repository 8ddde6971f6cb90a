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

llm-compressor's ``linearize_moe`` splits a fused MoE experts module whose class carries
transformers' ``@use_experts_implementation`` decorator, with the layout the decorator's
arguments give; it reads them from the class's own source
(``llmcompressor/modeling/moe/helpers.py``, ``get_use_experts_implementation_args``), so a
subclass without the decorator is not split. Each such object carries them
(``experts_implementation``), read the same way from the installed transformers: a release
that adds MoE families needs no change in opscope.
"""

from __future__ import annotations

import ast
import inspect
import json
import textwrap

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


# get_use_experts_implementation_args' defaults, and the two arguments the split reads.
_EXPERTS_DEFAULTS = {"is_transposed": False, "has_gate": True}


def experts_implementation_args(source: str) -> dict | None:
    """The @use_experts_implementation arguments of the class defined in `source` (its own
    decorator list, as llm-compressor parses it), or None when it has no such decorator."""
    try:
        tree = ast.parse(textwrap.dedent(source))
    except (SyntaxError, ValueError):
        return None
    for node in ast.iter_child_nodes(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        for decorator in node.decorator_list:
            if isinstance(decorator, ast.Name) and decorator.id == "use_experts_implementation":
                return dict(_EXPERTS_DEFAULTS)
            if (isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Name)
                    and decorator.func.id == "use_experts_implementation"):
                args = dict(_EXPERTS_DEFAULTS)
                for keyword in decorator.keywords:
                    if keyword.arg in args and isinstance(keyword.value, ast.Constant):
                        args[keyword.arg] = bool(keyword.value.value)
                return args
    return None


def _experts_implementation(module, by_class: dict) -> dict | None:
    """The decorator's arguments for a module holding fused experts (a 3-D `down_proj`
    parameter of its own: the protocol linearize_moe tests first); one source read per class."""
    down = getattr(module, "_parameters", {}).get("down_proj")
    if down is None or down.dim() != 3:
        return None
    cls = type(module)
    if cls not in by_class:
        try:
            by_class[cls] = experts_implementation_args(inspect.getsource(cls))
        except (OSError, TypeError):  # no source (a class made at run time): not split
            by_class[cls] = None
    return by_class[cls]


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
    experts_by_class: dict = {}
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
        if (experts := _experts_implementation(module, experts_by_class)) is not None:
            entry["experts_implementation"] = experts
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
