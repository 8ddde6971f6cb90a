"""torch.export.save without the costs that do not change the archive.

Profiling `torch.export.save` on a 96-layer GPT (bench/models.py: gpt_96) showed most of its
time outside writing: torch 2.13's `ExportedProgramSerializer.serialize` calls
`canonicalize(serialized_ep, ...)` only as a self-check ("Test canonical form is well
defined") and throws the result away; that call deep-copies the whole serialized program and
was about 60% of the save. `serialize_graph` also renders the graph as Python source for a
`log.debug` line even when debug logging is off. And the program's JSON is built whole as
dicts and a str before its bytes (_streamed_json_bytes). Skipping these writes byte-for-byte
the same archive: `torch.export.load` reads it as before (tests/fidelity/test_export_helper.py).

If a future torch moves these names, the save simply runs as torch wrote it.
"""

from __future__ import annotations

import contextlib
import logging


@contextlib.contextmanager
def _without_unused_work():
    try:
        from torch._export.serde import serialize as serde
    except ImportError:
        yield
        return
    patches = []
    canonicalize = getattr(serde, "canonicalize", None)
    if callable(canonicalize):
        # The only caller during a save discards the result (see the module docstring).
        patches.append((serde, "canonicalize", canonicalize, lambda ep, constants=None: ep))
    serializer = getattr(serde, "GraphModuleSerializer", None)
    log = getattr(serde, "log", None)
    if serializer is not None and isinstance(log, logging.Logger) and not log.isEnabledFor(
            logging.DEBUG):
        original_serialize_graph = serializer.serialize_graph

        def serialize_graph(self, graph_module):
            # The debug line's argument is graph_module.print_readable(): make it free.
            graph_module.__dict__["print_readable"] = lambda *args, **kwargs: ""
            try:
                return original_serialize_graph(self, graph_module)
            finally:
                graph_module.__dict__.pop("print_readable", None)

        patches.append((serializer, "serialize_graph", original_serialize_graph,
                        serialize_graph))
    to_json_bytes = getattr(serde, "_to_json_bytes", None)
    streamed = _streamed_json_bytes(serde)
    if callable(to_json_bytes) and streamed is not None:
        patches.append((serde, "_to_json_bytes", to_json_bytes, streamed))
    for owner, name, _original, replacement in patches:
        setattr(owner, name, replacement)
    try:
        yield
    finally:
        for owner, name, original, _replacement in reversed(patches):
            setattr(owner, name, original)


# A list or dict this long is written element by element (a graph's nodes, its tensor values);
# a shorter one, and anything else, is converted and encoded whole, as torch does.
_STREAMED_LENGTH = 64


def _streamed_json_bytes(serde):
    """torch's `_to_json_bytes(program)` is `json.dumps(_dataclass_to_dict(program), ...)`: the
    whole program as nested dicts, then as one str, then as bytes. On GLM-5-Next's default
    config (a 57,883-op graph, 108 MB of JSON) that was the export's peak, 2,056 MB resident.
    This writes the same bytes (tests/fidelity/test_export_helper.py compares them) a node at
    a time, so only one node's dicts and the output buffer live at once: 1,784 MB, and no
    slower. None if torch's serializer no longer has these names."""
    import dataclasses
    import io
    import json

    union = getattr(serde, "_Union", None)
    to_dict = getattr(serde, "_dataclass_to_dict", None)
    encoder_class = getattr(serde, "EnumEncoder", None)
    if union is None or not callable(to_dict) or encoder_class is None:
        return None
    # What json.dumps(..., cls=EnumEncoder, allow_nan=False) builds (default separators,
    # ASCII output), so every part encodes as it does inside the whole.
    encode = encoder_class(allow_nan=False).encode
    key = json.encoder.encode_basestring_ascii

    def to_json_bytes(program) -> bytes:
        buffer, pending = io.BytesIO(), []

        def write(obj) -> None:
            if isinstance(obj, union):
                pending.append("{" + key(obj.type) + ": ")
                write(obj.value)
                pending.append("}")
            elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
                write_items((field.name, getattr(obj, field.name))
                            for field in dataclasses.fields(obj))
            elif isinstance(obj, (list, tuple)) and len(obj) >= _STREAMED_LENGTH:
                pending.append("[")
                for number, item in enumerate(obj):
                    if number:
                        pending.append(", ")
                    write(item)
                pending.append("]")
            elif isinstance(obj, dict) and len(obj) >= _STREAMED_LENGTH and \
                    all(isinstance(name, str) for name in obj):
                write_items(obj.items())
            else:
                pending.append(encode(to_dict(obj)))
            if len(pending) > 4096:
                flush()

        def write_items(items) -> None:
            pending.append("{")
            for number, (name, value) in enumerate(items):
                pending.append((", " if number else "") + key(name) + ": ")
                write(value)
            pending.append("}")

        def flush() -> None:
            buffer.write("".join(pending).encode("ascii"))
            pending.clear()

        write(program)
        flush()
        return buffer.getvalue()

    return to_json_bytes


@contextlib.contextmanager
def _weight_groups_by_tensor():
    """torch.export.save writes tensors that share a storage into one weight file, keyed by the
    storage's address; a weightless program's tensors have none (address 0), so every weight of
    a dtype would land in one file and read as tied. Group those by tensor identity instead:
    a tied parameter is one tensor object under two names."""
    try:
        from torch.export.pt2_archive import _package
        from torch.utils._ordered_set import OrderedSet
    except ImportError:
        yield
        return
    original = getattr(_package, "group_weights", None)
    if not callable(original):
        yield
        return

    def group_weights(all_weights):
        groups = {}
        for model_name, weights in all_weights.items():
            for weight_name, (tensor, properties) in weights.items():
                ptr = getattr(properties, "storage_ptr", 0)
                key = (ptr, tensor.dtype) if ptr else ("tensor", id(tensor), tensor.dtype)
                groups.setdefault(key, OrderedSet()).add((model_name, weight_name))
        return list(groups.values())

    _package.group_weights = group_weights
    try:
        yield
    finally:
        _package.group_weights = original


def save_eager_only(path: str, extra_files: dict[str, str]) -> None:
    """An archive with the eager record and no program, laid out as torch.export.save lays
    out its records (`<name>/extra/...`, stored uncompressed): eager mode reads nothing else,
    and `opscope-inspect --mode graph` says the archive has no program."""
    import os
    import zipfile

    folder = os.path.splitext(os.path.basename(path))[0] or "archive"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr(f"{folder}/archive_format", "pt2")
        for name, text in extra_files.items():
            archive.writestr(f"{folder}/extra/{name}", text)


def save_program(program, path: str, extra_files: dict[str, str] | None = None,
                 weightless: bool = False) -> None:
    """torch.export.save(program, path, extra_files=...), minus work whose result is unused;
    with no program (an eager-only export), the archive holds the extra files only."""
    import torch

    if program is None:
        save_eager_only(path, extra_files or {})
        return

    groups = _weight_groups_by_tensor() if weightless else contextlib.nullcontext()
    with _without_unused_work(), groups:
        torch.export.save(program, path, extra_files=extra_files or None)


def unserializable(exc: BaseException, program) -> str | None:
    """For torch.export.save's SerializeError (unlimited_ocr: a `flat_apply` that a vmap in
    transformers' mask code left in the graph), one line naming the op it cannot write, the
    module that made it, and what to do; None for any other failure."""
    import re

    if type(exc).__name__ != "SerializeError" or program is None:
        return None
    match = re.search(r"Failed serializing node (\S+)", str(exc))
    node = next((n for n in program.graph.nodes if match and n.name == match.group(1)), None)
    if node is None:
        return None
    op = getattr(node.target, "__name__", None) or str(node.target)
    stack = list((node.meta.get("nn_module_stack") or {}).values())
    where = ""
    if stack:
        path, module_type = stack[-1][0], stack[-1][1]
        module_name = getattr(module_type, "__name__", None) or str(module_type).rsplit(".")[-1]
        where = f" made in {path or 'the model'} ({module_name})"
    import torch

    return (f"torch {torch.__version__} cannot save the graph's `{op}` (node {node.name}"
            f"{where}); for eager mode, export with --mode eager, which stores no graph")
