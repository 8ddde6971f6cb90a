"""Resolve TARGET (`package.module:factory` or `path/to/file.py:factory`) to an nn.Module.

The factory is a callable returning an nn.Module (a class is a callable too), an
nn.Module instance, or a callable returning `(module, example_args_tuple)`.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
from dataclasses import dataclass

from opscope_export.errors import ExportError, describe

TARGET_SYNTAX = ("TARGET is package.module:factory, path/to/file.py:factory or hf:CONFIG "
                 "(a Hugging Face config.json, its folder, or a cached model id)")


@dataclass
class LoadedTarget:
    module: object  # the nn.Module
    example_args: tuple | None  # from a factory returning (module, args)
    module_name: str  # the Python module the factory lives in


def split_target(target: str) -> tuple[str, str]:
    if target.startswith("hf:"):  # hf:CONFIG (hf_target.py): no factory part
        return "hf", target[3:]
    where, sep, attr = target.rpartition(":")
    if not sep or not where or not attr:
        raise ExportError(f"{target}: missing ':factory'; {TARGET_SYNTAX}")
    return where, attr


def _is_path(where: str) -> bool:
    return where.endswith(".py") or "/" in where or os.sep in where


def _module_name_for_file(path: str) -> tuple[str, str]:
    """(sys.path root, dotted module name) so a file inside packages imports under the
    same name (and so the same class names) as a normal `import` would give it."""
    directory, filename = os.path.split(os.path.abspath(path))
    parts = [os.path.splitext(filename)[0]]
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        directory, package = os.path.split(directory)
        parts.insert(0, package)
    return directory, ".".join(parts)


def _import(module_name: str, search_dir: str, target: str):
    if search_dir not in sys.path:
        sys.path.insert(0, search_dir)
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if module_name == missing or module_name.startswith(missing + "."):
            raise ExportError(
                f"{target}: cannot import module '{module_name}' ({describe(exc)}); "
                f"looked in {search_dir} first (then the interpreter's sys.path). "
                "Run from your project directory or give the file path: path/to/file.py:factory"
            ) from exc
        raise ExportError(
            f"{target}: importing '{module_name}' needs '{missing}', which {sys.executable} "
            f"cannot import ({describe(exc)}); install it there or pass --python PATH"
        ) from exc
    except SystemExit as exc:
        raise ExportError(
            f"{target}: importing '{module_name}' called sys.exit({exc.code!r}); nothing was "
            "exported: keep script code under `if __name__ == \"__main__\":`"
        ) from exc
    except Exception as exc:
        raise ExportError(f"{target}: importing '{module_name}' failed: {describe(exc)}") from exc


def _candidates(py_module) -> str:
    """Names in the module a user may have meant, for the 'no such factory' message."""
    import torch

    names = []
    for name, value in vars(py_module).items():
        if name.startswith("_") or getattr(value, "__module__", None) != py_module.__name__:
            continue
        if inspect.isfunction(value) or (
            inspect.isclass(value) and issubclass(value, torch.nn.Module)
        ):
            names.append(name)
        elif isinstance(value, torch.nn.Module):
            names.append(name)
    return ", ".join(names[:12]) if names else "none"


def load_target(target: str) -> LoadedTarget:
    where, attr = split_target(target)
    import torch

    if _is_path(where):
        if not os.path.isfile(where):
            raise ExportError(f"{target}: no such file {os.path.abspath(where)}")
        search_dir, module_name = _module_name_for_file(where)
    else:
        search_dir, module_name = os.getcwd(), where
    py_module = _import(module_name, search_dir, target)
    if _is_path(where):
        loaded_from = os.path.realpath(getattr(py_module, "__file__", "") or "")
        if loaded_from != os.path.realpath(where):
            raise ExportError(
                f"{target}: importing it as '{module_name}' found another module first "
                f"({loaded_from or 'built in'}); rename the file or use package.module:factory"
            )

    factory = py_module
    for part in attr.split("."):
        if not hasattr(factory, part):
            raise ExportError(
                f"{target}: module '{module_name}' ({getattr(py_module, '__file__', '?')}) "
                f"has no attribute '{attr}'; candidates: {_candidates(py_module)}"
            )
        factory = getattr(factory, part)

    if isinstance(factory, torch.nn.Module):
        result = factory
    elif callable(factory):
        try:
            result = factory()
        except SystemExit as exc:
            raise ExportError(
                f"{target}: calling the factory called sys.exit({exc.code!r}); nothing was "
                "exported"
            ) from exc
        except Exception as exc:
            raise ExportError(
                f"{target}: calling the factory (no arguments, returning an nn.Module) "
                f"failed: {describe(exc)}"
            ) from exc
    else:
        raise ExportError(
            f"{target}: '{attr}' is a {type(factory).__name__}, not a callable or nn.Module"
        )

    example_args = None
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[0], torch.nn.Module):
        result, example_args = result
        if not isinstance(example_args, tuple):
            example_args = (example_args,)
    if not isinstance(result, torch.nn.Module):
        raise ExportError(
            f"{target}: the factory returned a {type(result).__name__}, expected an nn.Module "
            "(or a (module, example_inputs) tuple)"
        )
    return LoadedTarget(module=result, example_args=example_args, module_name=module_name)


def forward_signature(module) -> str:
    try:
        return f"forward{inspect.signature(module.forward)}"
    except (TypeError, ValueError):
        return "forward(...)"
