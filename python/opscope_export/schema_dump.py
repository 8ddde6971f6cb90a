"""Dump coreai-opt's config models as data: `python -m opscope_export schema [-o FILE]`.

opscope checks, completes and explains configs from this dump, so a new coreai-opt version
is checked by its own models without a new opscope release. pydantic's model_json_schema()
fails on the torch.dtype fields, so the models are walked here: each field's type (enums,
literals, unions, dicts, lists, registries such as `granularity: {type: per_channel}`), its
default, its numeric constraints, and the documentation coreai-opt gives it. Values that
pydantic accepts only through a validator (dtype names, registered classes, enum aliases) are
found by asking the validator itself, so the dump says what this version accepts.

Output: one JSON object (format "opscope-coreai-schema/1"), described in docs/SCHEMA_DUMP.md.
"""

from __future__ import annotations

import enum
import inspect
import json
import re
import types
import typing
from typing import Any

FORMAT = "opscope-coreai-schema/1"

# The compressors' top-level classes, by import path: a missing one (an older coreai-opt) is
# left out, not an error.
_ROOTS = (
    ("coreai_opt.quantization.config.quantization_config", "QuantizerConfig"),
    ("coreai_opt.palettization.config.palettization_config", "KMeansPalettizerConfig"),
    ("coreai_opt.pruning.config.magnitude_pruner_config", "MagnitudePrunerConfig"),
)


def _attribute_docs(cls) -> dict[str, str]:
    """Field descriptions from the class docstrings' `Attributes:` sections (Google style),
    most derived class first."""
    docs: dict[str, str] = {}
    for klass in cls.__mro__:
        text = inspect.cleandoc(klass.__dict__.get("__doc__") or "")
        match = re.search(r"^Attributes:\s*\n(.*?)(?=^\S|\Z)", text, re.S | re.M)
        if not match:
            continue
        current = None
        for line in match.group(1).splitlines():
            head = re.match(r"^    (\w+)(?: \(.*?\))?:\s*(.*)$", line)
            if head:
                current = head.group(1)
                if current not in docs:
                    docs[current] = head.group(2)
                else:
                    current = None
            elif current and line.strip():
                docs[current] = (docs[current] + "\n" + line.strip()).strip()
            elif current:
                docs[current] += "\n"
    return {k: v.strip() for k, v in docs.items()}


def _class_summary(cls) -> str:
    doc = inspect.cleandoc(cls.__dict__.get("__doc__") or "")
    return doc.split("\n\n")[0].strip()


class _Walker:
    def __init__(self):
        import torch
        from pydantic import BaseModel

        self.torch = torch
        self.BaseModel = BaseModel
        self.models: dict[str, dict] = {}
        self.dtypes: dict[str, dict] = {}
        self.pending: list[type] = []

    # -- types -------------------------------------------------------------------------
    def model_ref(self, cls) -> str:
        name = cls.__name__
        if name not in self.models:
            self.models[name] = {}  # reserved: recursion stops here
            self.pending.append(cls)
        return name

    def registry(self, cls) -> dict | None:
        reg = getattr(cls, "REGISTRY", None)
        if not reg or not hasattr(cls, "maybe_build_from_dict"):
            return None
        options = {str(k): self.model_ref(v) for k, v in reg.items()}
        return {"kind": "registry", "base": cls.__name__, "discriminator": "type",
                "options": options}

    def enum_type(self, enum_cls) -> dict:
        from pydantic import TypeAdapter

        adapter = TypeAdapter(enum_cls)
        values = [m.value for m in enum_cls]
        candidates = list(values)
        for m in enum_cls:
            candidates += [m.name, m.name.lower()]
        for alias in getattr(enum_cls, "__deprecated_aliases__", {}) or {}:
            candidates += [alias, alias.lower()]
        aliases = []
        for c in candidates:
            if c in values or c in aliases:
                continue
            try:
                adapter.validate_python(c)
                aliases.append(c)
            except Exception:
                pass
        return {"kind": "enum", "values": values, "aliases": aliases, "name": enum_cls.__name__}

    def dtype_values(self, model, field: str) -> dict:
        """The dtype names this field's validators accept (each tried alone)."""
        torch = self.torch
        names = sorted({n for n in dir(torch) if isinstance(getattr(torch, n, None), torch.dtype)}
                       | set(getattr(model, "_DTYPE_ALIASES", {}) or {}))
        accepted = []
        for name in names:
            try:
                model.model_validate({field: name})
                accepted.append(name)
            except Exception as exc:
                errors = getattr(exc, "errors", None)
                if callable(errors):
                    # Refused by a model validator (a combination), not by the field.
                    if all(tuple(e.get("loc", ())) != (field,) for e in errors()):
                        accepted.append(name)
        for name in accepted:
            dt = getattr(torch, name, None) or (getattr(model, "_DTYPE_ALIASES", {}) or {})[name]
            self.dtypes[name] = {"floating": bool(dt.is_floating_point),
                                 "canonical": str(dt).replace("torch.", ""),
                                 "e8m0_scale": dt in _e8m0_dtypes(),
                                 "lut": dt in _lut_dtypes()}
        return {"kind": "enum", "values": accepted, "name": "torch.dtype"}

    def class_values(self, base) -> dict:
        reg = getattr(base, "REGISTRY", None) or {}
        # Stateless (dynamic) calculators: a validator refuses them with some schemes.
        stateless = [str(k) for k, v in reg.items() if isinstance(v, type) and any(
            b.__name__.startswith("Stateless") for b in v.__mro__)]
        return {"kind": "enum", "values": [str(k) for k in reg], "name": base.__name__,
                "stateless": stateless}

    def type_of(self, tp, model=None, field=None, metadata=()) -> dict:
        origin = typing.get_origin(tp)
        args = typing.get_args(tp)
        if origin is typing.Annotated:
            return self.type_of(args[0], model, field, tuple(metadata) + tuple(tp.__metadata__))
        out = self._type_of(tp, origin, args, model, field)
        flat = []
        for m in metadata:  # Field(gt=0) inside Annotated keeps its constraints in .metadata
            flat.append(m)
            flat += list(getattr(m, "metadata", None) or []) if not isinstance(m, type) else []
        metadata = flat
        for m in metadata:
            for key in ("ge", "gt", "le", "lt"):
                value = getattr(m, key, None)
                if value is not None:
                    _constrain(out, key, value)
            if getattr(m, "__class__", None).__name__ in ("BeforeValidator",):
                fn = getattr(m, "func", None)
                name = getattr(fn, "__name__", "")
                if name == "_convert_none_to_disabled_spec_dict" or name == "_convert_none_to_empty_dict":
                    out["none_ok"] = True
                if name == "_convert_digit_str_keys_to_int":
                    out["digit_keys"] = True
                if name == "maybe_build_from_dict":
                    owner = getattr(fn, "__self__", None)
                    if owner is not None and self.registry(owner):
                        out = self.registry(owner)
        return out

    def _type_of(self, tp, origin, args, model, field) -> dict:
        torch = self.torch
        if tp is Any:
            return {"kind": "any"}
        if tp is type(None) or tp is None:
            return {"kind": "null"}
        if origin in (typing.Union, types.UnionType):
            return {"kind": "union", "options": [self.type_of(a, model, field) for a in args]}
        if origin is typing.Literal:
            return {"kind": "literal", "values": list(args)}
        if origin in (dict, typing.Dict):  # noqa: UP006
            return {"kind": "dict", "key": self.type_of(args[0], model, field),
                    "value": self.type_of(args[1], model, field)}
        if origin in (list, typing.List, set, frozenset):  # noqa: UP006
            return {"kind": "list", "item": self.type_of(args[0], model, field) if args else {"kind": "any"}}
        if origin is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                return {"kind": "list", "item": self.type_of(args[0], model, field), "tuple": True}
            return {"kind": "tuple", "items": [self.type_of(a, model, field) for a in args]}
        if origin is type:
            base = args[0] if args else object
            if model is not None and field is not None and getattr(base, "REGISTRY", None):
                return self.class_values(base)
            return {"kind": "any"}
        if tp is torch.dtype:
            return self.dtype_values(model, field)
        if tp is bool:
            return {"kind": "bool"}
        if tp is int:
            return {"kind": "int"}
        if tp is float:
            return {"kind": "float"}
        if tp is str:
            return {"kind": "str"}
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return self.enum_type(tp)
        if isinstance(tp, type) and issubclass(tp, self.BaseModel):
            # A registry base is built from `{type: ...}` only through its BeforeValidator
            # (maybe_build_from_dict, seen in type_of); bare, pydantic validates the base.
            return {"kind": "model", "model": self.model_ref(tp)}
        if isinstance(tp, type) and issubclass(tp, torch.nn.Module):
            return {"kind": "any"}
        return {"kind": "any", "python": repr(tp)}

    # -- models ------------------------------------------------------------------------
    def walk(self, cls) -> None:
        from pydantic_core import PydanticUndefined

        docs = _attribute_docs(cls)
        fields = []
        for name, info in cls.model_fields.items():
            tp = info.annotation
            if info.metadata:
                tp = typing.Annotated[(tp, *info.metadata)]
            entry: dict[str, Any] = {"name": name, "type": self.type_of(tp, cls, name)}
            entry["required"] = info.is_required()
            default = info.default
            if default is PydanticUndefined and info.default_factory is not None:
                try:
                    default = info.default_factory()
                except Exception:
                    default = PydanticUndefined
            if default is not PydanticUndefined:
                entry["default"] = _plain(default)
            doc = info.description or docs.get(name)
            if doc:
                entry["doc"] = doc
            fields.append(entry)
        extra = cls.model_config.get("extra")
        self.models[cls.__name__] = {
            "doc": _class_summary(cls),
            "forbid": extra == "forbid",
            "strip_unknown": "_strip_computed_fields" in dir(cls),
            "fields": fields,
            # coreai-opt's model validators by name: opscope ports the ones it knows.
            "validators": sorted(cls.__pydantic_decorators__.model_validators),
            "bases": [b.__name__ for b in cls.__mro__[1:] if isinstance(b, type)
                      and issubclass(b, self.BaseModel) and b is not self.BaseModel],
        }

    def run(self) -> None:
        while self.pending:
            self.walk(self.pending.pop(0))


def _constrain(t: dict, key: str, value) -> None:
    """A numeric constraint on a type, or on the numeric options of a union."""
    if t.get("kind") in ("int", "float"):
        t[key] = value
    elif t.get("kind") == "union":
        for option in t["options"]:
            _constrain(option, key, value)


def _lut_dtypes() -> set:
    """The dtypes a palettization LUT may be quantized to (coreai-opt's own set)."""
    try:
        from coreai_opt.palettization.spec.spec import _SUPPORTED_LUT_DTYPES

        return set(_SUPPORTED_LUT_DTYPES)
    except ImportError:
        return set()


def _e8m0_dtypes() -> set:
    """The element dtypes an e8m0 scale_dtype may go with (coreai-opt's own table)."""
    try:
        from coreai_opt._utils.torch_utils import E8M0_TARGET_MAX_POW2

        return set(E8M0_TARGET_MAX_POW2)
    except ImportError:
        return set()


def _plain(value: Any) -> Any:
    """A default as YAML would spell it."""
    try:
        import torch

        if isinstance(value, torch.dtype):
            return str(value).replace("torch.", "")
    except ImportError:
        pass
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, type):
        return value.__name__
    if hasattr(value, "model_dump"):
        try:
            return _plain(value.model_dump())
        except Exception:
            return repr(value)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)


def dump() -> dict:
    import importlib
    import importlib.metadata

    walker = _Walker()
    roots = {}
    for module_name, class_name in _ROOTS:
        try:
            cls = getattr(importlib.import_module(module_name), class_name)
        except (ImportError, AttributeError):
            continue
        roots[cls._CONFIG_KEY] = {"model": walker.model_ref(cls), "spec_key": cls._SPEC_KEY}
    walker.run()
    return {
        "format": FORMAT,
        "coreai_opt": importlib.metadata.version("coreai-opt"),
        "roots": roots,
        "models": walker.models,
        "dtypes": walker.dtypes,
    }


def main(argv: list[str]) -> int:
    import argparse
    import os
    import tempfile

    parser = argparse.ArgumentParser(prog="opscope-export schema",
                                     description="Dump coreai-opt's config models as JSON.")
    parser.add_argument("-o", "--output", help="file to write (atomically); default stdout")
    args = parser.parse_args(argv)
    text = json.dumps(dump(), indent=1, sort_keys=False) + "\n"
    if not args.output:
        print(text, end="")
        return 0
    folder = os.path.dirname(os.path.abspath(args.output))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".schema-")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, args.output)
    return 0
