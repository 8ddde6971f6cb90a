"""The record of a model torch.export could not trace: its module names and state only.

Some architectures cannot become a graph from a config at all (ViLT samples patches with
``torch.multinomial`` on its mask's values; UDOP drops the patches its boxes cover, by their
values). What PEFT, llm-compressor and coreai-opt's module-name keys match
is ``named_modules()``, which needs no trace. So, rather than fail, an ``hf:`` export writes an
archive holding the module table (module_names.py) and this record: why there is no graph, and
every parameter and buffer with its shape and dtype (what a trainable count or a projected size
reads). opscope reads such an archive as a model with modules and no ops, and says why wherever
op names would be needed (``<archive>/extra/opscope_untraced.json``).
"""

from __future__ import annotations

import json

UNTRACED_FILE_NAME = "opscope_untraced.json"
UNTRACED_FORMAT = "opscope-untraced"
UNTRACED_VERSION = 1


def _state(model) -> list[dict]:
    """named_parameters() then named_buffers(), one entry per tensor (tied weights: the first
    name, the others as aliases), as the graph signature lists them."""
    entries: list[dict] = []
    first: dict[int, dict] = {}
    for buffer, named in ((False, model.named_parameters(remove_duplicate=False)),
                          (True, model.named_buffers(remove_duplicate=False))):
        for name, tensor in named:
            seen = first.get(id(tensor))
            if seen is not None:
                if name != seen["name"]:
                    seen.setdefault("aliases", []).append(name)
                continue
            entry = {"name": name, "shape": list(tensor.shape),
                     "dtype": str(tensor.dtype).removeprefix("torch.")}
            if buffer:
                entry["buffer"] = True
            first[id(tensor)] = entry
            entries.append(entry)
    return entries


def untraced_extra_files(model, reason: str) -> dict[str, str]:
    """`extra_files` of an archive without a program: the module table and this record."""
    from opscope_export.module_names import module_extra_files

    record = {"format": UNTRACED_FORMAT, "version": UNTRACED_VERSION, "reason": reason,
              "state": _state(model)}
    files = module_extra_files(model)
    files[UNTRACED_FILE_NAME] = json.dumps(record, separators=(",", ":"))
    return files
