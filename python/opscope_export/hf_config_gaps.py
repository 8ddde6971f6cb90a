"""Fields a default config leaves unset that its model reads while being built.

Some of transformers' default configs do not build their own model: a field is None (ESM's
vocab_size, LFM2-MoE's layer_types) or a dict lacks the entry the model looks up (Cohere
Compass's per-layer-type rope_parameters); released checkpoints set them. When building
fails so, the line of the model's code that failed names the field (`config.layer_types[i]`).
Unset layer types take transformers' own default (every layer full attention, what most
configs fill in themselves); any other such field is named in the error, with where to set it.
"""

from __future__ import annotations

import linecache
import re

_FIELD = re.compile(r"\b((?:self\.)?\w*config)\.(\w+)")
_UNSET = object()


def _frames(exc: BaseException) -> list:
    """(frame, line number) of the traceback of `exc` and the exceptions it wraps, innermost
    first."""
    found, seen = [], exc
    for _ in range(5):
        if seen is None:
            break
        tb, chain = seen.__traceback__, []
        while tb is not None:
            chain.append((tb.tb_frame, tb.tb_lineno))
            tb = tb.tb_next
        found += chain[::-1]
        seen = seen.__cause__ or seen.__context__
    return found


def _owner(frame, name: str):
    """The config object `name` (`config`, `self.config`, `text_config`) stands for in
    `frame`, or None."""
    if name.startswith("self."):
        owner = frame.f_locals.get("self")
        return getattr(owner, name[len("self."):], None) if owner is not None else None
    return frame.f_locals.get(name)


def unset_field(exc: BaseException) -> tuple | None:
    """(config, field, missing key or None, where) for a build that failed reading a field
    the config leaves unset (None) or a dict field lacking the key the KeyError names;
    `where` is the `Class.method` whose line read it. None when the failure is another one."""
    key = exc.args[0] if isinstance(exc, KeyError) and exc.args else _UNSET
    for frame, lineno in _frames(exc):
        line = linecache.getline(frame.f_code.co_filename, lineno)
        for match in _FIELD.finditer(line):
            config = _owner(frame, match.group(1))
            if config is None or not hasattr(config, "model_type"):
                continue
            value = getattr(config, match.group(2), _UNSET)
            owner = frame.f_locals.get("self")
            where = f"{type(owner).__name__}.{frame.f_code.co_name}" if owner is not None \
                else frame.f_code.co_name
            if value is None:
                return config, match.group(2), None, where
            if isinstance(value, dict) and key is not _UNSET and key not in value:
                return config, match.group(2), key, where
    return None


def fill_default(config, field: str, key) -> bool:
    """Sets `field` to transformers' own default where there is one (unset layer types:
    every layer full attention); whether it did."""
    layers = getattr(config, "num_hidden_layers", None)
    if field == "layer_types" and key is None and isinstance(layers, int) and layers > 0:
        config.layer_types = ["full_attention"] * layers
        return True
    return False


def describe_gap(model_type: str, field: str, key, where: str) -> str:
    """`the esm config leaves "vocab_size" unset (EsmEmbeddings.__init__ reads it; ...): set
    it in config.json`; `field` may be a path (`text_config.rope_parameters`)."""
    if key is None:
        what = f"leaves \"{field}\" unset"
    else:
        what = f"has no {key!r} entry in \"{field}\""
    return (f"the {model_type} config {what} ({where} reads it; a released "
            f"checkpoint's config.json sets it): set it in config.json")
