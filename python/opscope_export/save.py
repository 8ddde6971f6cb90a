"""torch.export.save without the two costs that do not change the archive.

Profiling `torch.export.save` on a 96-layer GPT (bench/models.py: gpt_96) showed most of its
time outside writing: torch 2.13's `ExportedProgramSerializer.serialize` calls
`canonicalize(serialized_ep, ...)` only as a self-check ("Test canonical form is well
defined") and throws the result away; that call deep-copies the whole serialized program and
was about 60% of the save. `serialize_graph` also renders the graph as Python source for a
`log.debug` line even when debug logging is off. Skipping both writes byte-for-byte the same
archive: `torch.export.load` reads it as before (tests/fidelity/test_export_helper.py).

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
    for owner, name, _original, replacement in patches:
        setattr(owner, name, replacement)
    try:
        yield
    finally:
        for owner, name, original, _replacement in reversed(patches):
            setattr(owner, name, original)


def save_program(program, path: str, extra_files: dict[str, str] | None = None) -> None:
    """torch.export.save(program, path, extra_files=...), minus work whose result is unused."""
    import torch

    with _without_unused_work():
        torch.export.save(program, path, extra_files=extra_files or None)
