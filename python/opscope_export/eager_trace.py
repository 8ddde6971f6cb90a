"""Record coreai-opt's eager-mode view of a model by running it once.

Eager op names cannot be recovered from a ``.pt2`` archive: ``torch.export``
drops calls that produce no aten node (``x.size()``, ``x.contiguous()``, a
no-op ``dropout``), while coreai-opt's eager ``ModelInspector`` counts every
overridable torch-function call and wires edges by tensor identity and version
(see docs/EAGER_MODE.md). So the export helper runs one forward pass under a
``TorchFunctionMode`` that mirrors coreai-opt 0.4.0's ``_EagerOpDiscoveryMode``
(``coreai_opt/inspection/_eager_mode.py``, BSD-3-Clause) and stores what it saw
as JSON inside the archive (``<archive>/extra/opscope_eager.json``).

The record is compressor-independent: it keeps every intercepted op with its
base type and the torch function's resolved name; opscope's C++ eager builder
(core/inspect/src/eager_*.cpp) builds the module tree and boundaries and applies
the Quantizer / KMeansPalettizer eager tables. This module needs only torch.
"""

from __future__ import annotations

import itertools
import json
import linecache
import sys
import types
import weakref
from collections import defaultdict
from typing import Any, Callable, NamedTuple

import torch
from torch.overrides import TorchFunctionMode

# Name of the record inside the archive: torch.export.save(..., extra_files={EXTRA_FILE_NAME: text})
# stores it as `<archive>/extra/opscope_eager.json`.
EXTRA_FILE_NAME = "opscope_eager.json"
TRACE_FORMAT = "opscope-eager-trace"
TRACE_VERSION = 1

_FORWARD = "forward"


class _IdVersion(NamedTuple):
    id: int
    version: int


class _Op:
    """One recorded op; mirrors coreai-opt's OpInfo (op_type None for non-call ops)."""

    __slots__ = ("name", "kind", "type", "function", "module_stack", "source", "inputs", "outputs")

    def __init__(self, name: str, kind: str, type_: str | None = None, function: str | None = None):
        self.name = name
        self.kind = kind  # "call" | "input" | "output" | "state" | "untracked"
        self.type = type_
        self.function = function
        self.module_stack: list[tuple[str, str]] = []
        self.source: list[tuple[str, int, str, str]] = []
        self.inputs: list[_Edge] = []
        self.outputs: dict[int, list[_Op]] = {}


class _Edge(NamedTuple):
    op: _Op
    slot: int | None


def _fqn(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _flatten_tensors(obj: Any) -> list[torch.Tensor]:
    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        out: list[torch.Tensor] = []
        for item in obj:
            out.extend(_flatten_tensors(item))
        return out
    if isinstance(obj, dict):
        out = []
        for value in obj.values():
            out.extend(_flatten_tensors(value))
        return out
    return []


def _memoized_per_function(compute: Callable[[Callable], Any]) -> Callable[[Callable], Any]:
    """`compute(func)`, worked out once per function object: the answers depend only on the
    function, and a forward calls the same few dozen functions thousands of times (the
    uncached lookups were a third of a recording's Python time). Unhashable callables are
    computed each time."""
    answers: dict[Callable, Any] = {}

    def lookup(func: Callable) -> Any:
        try:
            return answers[func]
        except KeyError:
            answer = answers[func] = compute(func)
            return answer
        except TypeError:
            return compute(func)

    return lookup


@_memoized_per_function
def _is_interceptable(func: Callable) -> bool:
    return any(
        func in funcs
        for entity, funcs in torch.overrides.get_overridable_functions().items()
        if isinstance(entity, (type, types.ModuleType))
    )


@_memoized_per_function
def _base_name(func: Callable) -> str:
    resolved = torch.overrides.resolve_name(func)
    if resolved is None:
        return func.__name__
    return resolved.rsplit(".", maxsplit=1)[-1]


@_memoized_per_function
def _function_id(func: Callable) -> str:
    """The key the compressor tables use: torch's resolved name of the function object."""
    resolved = torch.overrides.resolve_name(func)
    if resolved is not None:
        return resolved
    return f"{getattr(func, '__module__', '')}.{getattr(func, '__qualname__', func.__name__)}"


class _ProducerMap:
    """(id, version) -> producing edge, forgotten when the tensor dies (ids get reused)."""

    def __init__(self) -> None:
        self._entries: dict[_IdVersion, _Edge] = {}

    def register(self, tensor: torch.Tensor, edge: _Edge) -> None:
        key = _IdVersion(id(tensor), tensor._version)
        self._entries[key] = edge
        weakref.finalize(tensor, self._entries.pop, key, None)

    def get(self, key: _IdVersion) -> _Edge | None:
        return self._entries.get(key)


class _EagerRecorder(TorchFunctionMode):
    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model
        self.parents: list[tuple[str, torch.nn.Module]] = []
        self.traversed: set[torch.nn.Module] = set()
        self.hooks: list[Any] = []
        self.func_counts: defaultdict[str, defaultdict[str, int]] = defaultdict(lambda: defaultdict(int))
        self.all_ops: list[_Op] = []
        self._seen: set[str] = set()
        self._producers = _ProducerMap()
        self._state_names = {
            id(t): name
            for name, t in itertools.chain(model.named_parameters(), model.named_buffers())
        }
        self._state_ops: dict[int, _Op] = {}
        self._untracked = 0
        self.module_inputs: dict[str, list[_Edge | None]] = {}
        self.module_outputs: dict[str, list[_Edge | None]] = {}
        self.failed_op: str | None = None  # "torch.Tensor.item in layers.0", set by a raise
        # Hook order matters (as in coreai-opt): inputs are captured before the root's
        # enter hook, outputs after the root's exit hook.
        self.hooks.append(model.register_forward_pre_hook(self._capture_inputs))
        for name, module in model.named_modules(remove_duplicate=True):
            self.hooks.append(module.register_forward_pre_hook(self._enter(name)))
            self.hooks.append(module.register_forward_hook(self._exit(name), always_call=True))
        self.hooks.append(model.register_forward_hook(self._capture_outputs, always_call=True))

    @property
    def current_name(self) -> str:
        return self.parents[-1][0] if self.parents else ""

    @property
    def current_module(self) -> torch.nn.Module:
        return self.parents[-1][1] if self.parents else self.model

    def _add(self, op: _Op) -> None:
        if op.name in self._seen:
            raise RuntimeError(f"duplicate eager op name {op.name}")
        self._seen.add(op.name)
        self.all_ops.append(op)

    def _new_untracked(self, tensor: torch.Tensor) -> _Edge:
        edge = _Edge(_Op(f"untracked_{self._untracked}", "untracked"), None)
        self._producers.register(tensor, edge)
        self._untracked += 1
        return edge

    def _resolve_boundary(self, t: torch.Tensor) -> _Edge | None:
        entry = self._producers.get(_IdVersion(id(t), t._version))
        if entry is not None:
            return entry
        if id(t) in self._state_names:
            return None
        return self._new_untracked(t)

    def _enter(self, name: str) -> Callable:
        def hook(module: torch.nn.Module, inputs: Any) -> None:
            self.parents.append((name, module))
            if module not in self.traversed:
                self.module_inputs[name] = [self._resolve_boundary(t) for t in _flatten_tensors(inputs)]

        return hook

    def _exit(self, name: str) -> Callable:
        def hook(module: torch.nn.Module, inputs: Any, outputs: Any) -> None:
            if module not in self.traversed:
                self.module_outputs[name] = [
                    self._producers.get(_IdVersion(id(t), t._version)) for t in _flatten_tensors(outputs)
                ]
            else:
                # A module called again records no ops; its outputs stand for the first call's.
                for entry, tensor in zip(self.module_outputs.get(name, []), _flatten_tensors(outputs)):
                    if entry is not None:
                        self._producers.register(tensor, entry)
            self.parents.pop()
            self.traversed.add(module)

        return hook

    def _capture_inputs(self, module: torch.nn.Module, inputs: Any) -> None:
        for i, tensor in enumerate(_flatten_tensors(inputs)):
            op = _Op(f"input_{i}", "input")
            self._add(op)
            self._producers.register(tensor, _Edge(op, None))

    def _capture_outputs(self, module: torch.nn.Module, inputs: Any, outputs: Any) -> None:
        for i, tensor in enumerate(_flatten_tensors(outputs)):
            entry = self._producers.get(_IdVersion(id(tensor), tensor._version))
            op = _Op(f"output_{i}", "output")
            if entry is not None:
                op.inputs.append(entry)
            self._add(op)
            if entry is not None and entry.slot is not None:
                entry.op.outputs.setdefault(entry.slot, []).append(op)

    def _module_stack(self) -> list[tuple[str, str]]:
        return [(name, _fqn(type(module))) for name, module in self.parents]

    @staticmethod
    def _source_frames() -> list[tuple[str, int, str, str]]:
        frames = []
        frame = sys._getframe()
        while frame is not None:
            if frame.f_code.co_name == _FORWARD:
                code = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
                frames.append((frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name, code))
            frame = frame.f_back
        return list(reversed(frames))

    def _state_edge(self, state_id: int) -> _Edge:
        op = self._state_ops.get(state_id)
        if op is None:
            op = _Op(self._state_names[state_id], "state")
            self._add(op)
            self._state_ops[state_id] = op
        return _Edge(op, None)

    def _resolve(self, tensor: torch.Tensor) -> _Edge:
        key = _IdVersion(id(tensor), tensor._version)
        if key.id in self._state_names:
            return self._state_edge(key.id)
        entry = self._producers.get(key)
        return entry if entry is not None else self._new_untracked(tensor)

    def __torch_function__(self, func, types_, args=(), kwargs=None):  # noqa: ANN001
        kwargs = kwargs or {}
        # Resolve before running: an in-place op bumps the version of its input.
        inputs = [self._resolve(t) for t in _flatten_tensors((*args, *kwargs.values()))]
        try:
            out = func(*args, **kwargs)
        except Exception:
            # Name the op that could not run (without data: one that reads tensor values).
            if self.failed_op is None:
                where = self.current_name
                self.failed_op = f"{_function_id(func)} in {where or 'the top-level module'}"
            raise
        if self.current_module in self.traversed or not _is_interceptable(func):
            return out
        module_name = self.current_name
        base = _base_name(func)
        count = self.func_counts[module_name][base]
        self.func_counts[module_name][base] = count + 1
        local = base if count == 0 else f"{base}_{count}"
        op = _Op(f"{module_name}.{local}" if module_name else local, "call", base, _function_id(func))
        op.module_stack = self._module_stack()
        op.source = self._source_frames()
        op.inputs = inputs
        self._add(op)
        seen: set[tuple[str, int | None]] = set()
        for edge in inputs:
            if (edge.op.name, edge.slot) in seen:
                continue
            seen.add((edge.op.name, edge.slot))
            if edge.slot is not None:
                edge.op.outputs.setdefault(edge.slot, []).append(op)
        for idx, tensor in enumerate(_flatten_tensors(out)):
            self._producers.register(tensor, _Edge(op, idx))
        return out

    def remove_hooks(self) -> None:
        for hook in self.hooks:
            hook.remove()
        self.hooks.clear()


class EagerOpError(RuntimeError):
    """The model raised inside one op; the message names it."""


def _state_tensors(model: torch.nn.Module) -> list[dict]:
    """Every parameter and buffer, one entry per tensor: its first name in
    named_parameters() / named_buffers() order (the name edges use), the other names of a
    tied or shared tensor as aliases, its shape and dtype."""
    entries: dict[int, dict] = {}
    for is_buffer, named in (
        (False, model.named_parameters(remove_duplicate=False)),
        (True, model.named_buffers(remove_duplicate=False)),
    ):
        for name, tensor in named:
            entry = entries.get(id(tensor))
            if entry is not None:
                entry.setdefault("aliases", []).append(name)
                continue
            entries[id(tensor)] = {
                "name": name,
                "shape": list(tensor.shape),
                "dtype": str(tensor.dtype).removeprefix("torch."),
                "buffer": is_buffer,
            }
    return list(entries.values())


def _edge_json(edge: _Edge | None) -> Any:
    if edge is None:
        return None
    return {"producer": edge.op.name, "slot": edge.slot, "state": edge.op.kind == "state"}


def trace_eager(model: torch.nn.Module, args: tuple, kwargs: dict | None = None) -> dict:
    """Run `model(*args, **kwargs)` once and return the eager record (a JSON-able dict).

    Like coreai-opt's eager inspector it runs under ``torch.no_grad()`` on the model as given
    (train/eval state untouched); call it after ``torch.export.export`` so a training-mode
    forward cannot change buffers before they are exported.
    """
    recorder = _EagerRecorder(model)
    try:
        with torch.no_grad(), recorder:
            model(*args, **(kwargs or {}))
    except Exception as exc:
        if recorder.failed_op is None:
            raise
        raise EagerOpError(f"op {recorder.failed_op} failed: {type(exc).__name__}: "
                           f"{(str(exc).strip().splitlines() or [''])[0][:300]}") from exc
    finally:
        recorder.remove_hooks()
    ops = []
    for op in recorder.all_ops:
        ops.append(
            {
                "name": op.name,
                "kind": op.kind,
                "type": op.type,
                "function": op.function,
                "module_stack": [list(ctx) for ctx in op.module_stack],
                "source": [
                    {"file": f, "line": line, "function": fn, "code": code} for f, line, fn, code in op.source
                ],
                "inputs": [_edge_json(e) for e in op.inputs],
                "outputs": [[slot, [c.name for c in consumers]] for slot, consumers in op.outputs.items()],
            }
        )
    return {
        "format": TRACE_FORMAT,
        "version": TRACE_VERSION,
        "torch_version": torch.__version__,
        "model_type": _fqn(type(model)),
        "ops": ops,
        # Per module (first call only): the producer of each flattened forward argument /
        # return value; null where coreai-opt records none (a state, an unknown output).
        "module_inputs": {name: [_edge_json(e) for e in edges] for name, edges in recorder.module_inputs.items()},
        "module_outputs": {name: [_edge_json(e) for e in edges] for name, edges in recorder.module_outputs.items()},
        # Optional (absent in older records): the model's parameters and buffers.
        "parameters": _state_tensors(model),
    }


def trace_eager_json(model: torch.nn.Module, args: tuple, kwargs: dict | None = None) -> str:
    """The record as text, ready for ``torch.export.save(..., extra_files={EXTRA_FILE_NAME: text})``."""
    return json.dumps(trace_eager(model, args, kwargs), separators=(",", ":"))


def eager_extra_files(model: torch.nn.Module, args: tuple, kwargs: dict | None = None) -> dict[str, str]:
    """`extra_files` for torch.export.save carrying the eager record.

    Never raises: if the model cannot run under the recorder, the record says why, and
    `opscope-inspect --mode eager` reports that message instead of a missing record (graph
    mode is unaffected). Call after torch.export.export.
    """
    try:
        text = trace_eager_json(model, args, kwargs)
    except Exception as exc:  # noqa: BLE001 - any model error becomes the record's message
        first_line = (str(exc).strip().splitlines() or [""])[0][:300]
        why = first_line if isinstance(exc, EagerOpError) else f"{type(exc).__name__}: {first_line}"
        text = json.dumps(
            {"format": TRACE_FORMAT, "version": TRACE_VERSION, "error": why}
        )
    return {EXTRA_FILE_NAME: text}


def eager_failure(extra_files: dict[str, str]) -> str | None:
    """Why the recording in `extra_files` (from eager_extra_files) failed, or None."""
    text = extra_files.get(EXTRA_FILE_NAME, "")
    if '"error"' not in text[:400]:  # a successful record starts with its format and ops
        return None
    try:
        return json.loads(text).get("error")
    except ValueError:
        return None
