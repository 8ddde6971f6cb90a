"""Building a model without weight data, and bounding the data a fallback may allocate.

A weightless export builds the model under `DataFreeMode`: torch's fake tensors (shapes,
dtypes, devices and strides, no data). Fake CPU tensors, not the meta device: kernels choose
their output strides by device, and on meta a CPU model's graph differs (transformers' SDPA
attention gains a `contiguous`); fake CPU tensors run the CPU kernels' shape logic, so the
graph is the one a real export gives. One difference from plain fake tensors: while the model
is built, a small tensor made from nothing also holds its values, so code that reads the
values of a small constant it just made still runs (timm's and transformers' drop-path
schedules: `[x.item() for x in torch.linspace(0, rate, depth)]`). Weights never hold data.

A model that reads the values of anything else cannot be built or run without data; the
message names the module that did (`reading_module`). The export may then fall back to real
weights, but only under `weights_at_most`: the build stops as soon as its allocations pass
the bound, naming the module being built, instead of the machine running out of memory.
"""

from __future__ import annotations

import contextlib
import functools
import sys

from opscope_export.errors import ExportError

# While building: an op computed for real too when its outputs have at most this many
# elements, until this many bytes were made that way (a bound, whatever the model does).
SMALL_CONSTANT_ELEMENTS = 4096
CONSTANT_BYTES_BUDGET = 256 << 20

# Exceptions (by class name, anywhere in the chain) raised when code needs the data that fake
# tensors do not have: a value read (`.item()`, `if tensor:`), an output whose shape depends on
# values (`nonzero`), a guard on a value during torch.export.
def _uninitialized_factories() -> frozenset:
    """Factories whose values are whatever memory held: never worth computing."""
    import torch

    aten = torch.ops.aten
    return frozenset({aten.empty.memory_format, aten.empty_strided.default,
                      aten.empty_like.default, aten.new_empty.default,
                      aten.new_empty_strided.default})


DATA_ERRORS = frozenset({
    "DataDependentOutputException", "DynamicOutputShapeException",
    "GuardOnDataDependentSymNode", "UnsupportedFakeTensorException",
    "DataDependentSymNodeException",
})


def needs_data(exc: BaseException) -> bool:
    """Whether `exc` (or an exception it wraps) was raised because tensors had no data."""
    seen = exc
    for _ in range(8):
        if seen is None:
            return False
        if type(seen).__name__ in DATA_ERRORS:
            return True
        text = str(seen)
        if "data-dependent" in text or "doesn't have storage" in text:
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _tensors(tree) -> list:
    import torch
    import torch.utils._pytree as pytree

    return [leaf for leaf in pytree.tree_leaves(tree) if isinstance(leaf, torch.Tensor)]


@functools.cache
def _mode_class():
    """Defined on first use: importing this module does not import torch (the helper reports
    a missing torch itself)."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
    from torch.utils._mode_utils import no_dispatch

    uninitialized = _uninitialized_factories()

    class DataFreeMode(FakeTensorMode):
        """Fake tensors. While `computing_constants`, a small tensor made from nothing (a
        factory: linspace, arange, tensor([...])) is a fake tensor that also holds its values
        (torch's fake-tensor constants), and so is what torch computes from such tensors
        alone: reading a value works. Everything stays a fake tensor, so nothing else changes."""

        def __init__(self):
            super().__init__(allow_non_fake_inputs=True)
            self.computing_constants = True
            self.constant_bytes = 0
            self.input_values = {}  # id(input) -> the values it held while being built
            # (module, name, values) of the non-persistent buffers that held values when
            # the build ended: see real_buffers
            self.buffer_values = []

        def may_turn_const(self, t) -> bool:  # torch's own bound is one element
            if not self.computing_constants:
                return super().may_turn_const(t)
            return (t.numel() <= SMALL_CONSTANT_ELEMENTS and t.layout == torch.strided
                    and not self.is_our_fake(t) and t.device.type == "cpu")

        def dispatch(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            out = super().dispatch(func, types, args, kwargs)
            if not self.computing_constants or _tensors((args, kwargs)) \
                    or func in uninitialized:
                return out
            # A factory: the fake result says how large the real one is.
            made = _tensors(out)
            size = sum(t.numel() * t.element_size() for t in made)
            if (not made or not all(isinstance(t, FakeTensor) and t.constant is None
                                    and t.numel() <= SMALL_CONSTANT_ELEMENTS
                                    and t.device.type == "cpu" for t in made)
                    or self.constant_bytes + size > CONSTANT_BYTES_BUDGET):
                return out
            self.constant_bytes += size
            with no_dispatch():
                real = func(*args, **kwargs)
            converter = self.fake_tensor_converter
            return torch.utils._pytree.tree_map_only(
                torch.Tensor, lambda t: converter.from_real_tensor(self, t, make_constant=True),
                real)

        def forget_constant(self, tensor) -> None:
            """`tensor` no longer holds values."""
            if self.is_our_fake(tensor) and tensor.constant is not None:
                _drop_fake_references(tensor)
                tensor.constant = None

        def end_build(self, model, args, kwargs) -> None:
            """The build is over: weights and inputs forget the values they held (the
            export must not fold them), and new tensors hold none."""
            self.computing_constants = False
            states = [*model.parameters(), *model.buffers()] \
                if isinstance(model, torch.nn.Module) else []
            for tensor in _tensors((args, kwargs)):
                if self.is_our_fake(tensor) and tensor.constant is not None:
                    self.input_values[id(tensor)] = tensor.constant
            modules = model.modules() if isinstance(model, torch.nn.Module) else []
            for module in modules:
                for name in module._non_persistent_buffers_set:
                    tensor = module._buffers.get(name)
                    if self.is_our_fake(tensor) and tensor.constant is not None:
                        self.buffer_values.append((module, name, tensor.constant))
            for tensor in [*states, *_tensors((args, kwargs))]:
                self.forget_constant(tensor)

    return DataFreeMode


@contextlib.contextmanager
def data_free():
    """Tensors made inside have no data (see the module docstring); yields the mode, whose
    `end_build` ends the build."""
    import torch.nn.init as init

    # torch's truncated-normal init re-draws until its values fit (`if not mask.any()`),
    # which fake tensors cannot answer; without data there is nothing to initialise.
    truncated_normal = getattr(init, "_no_grad_trunc_normal_", None)
    if truncated_normal is not None:
        init._no_grad_trunc_normal_ = lambda tensor, *args, **kwargs: tensor
    _swaps_fake_tensors()
    try:
        with _mode_class()() as mode:
            yield mode
    finally:
        if truncated_normal is not None:
            init._no_grad_trunc_normal_ = truncated_normal


def real_inputs(mode, args, kwargs):
    """(args, kwargs) as real tensors: the values each input held while it was built, else
    (an input added later) ones for a mask, zeros for other integers, random floats. Inputs
    are small; weights stay fake. With torch's real-tensor propagation, torch.export then
    decides a branch on values computed from the inputs alone (Longformer's global
    attention: `if is_index_global_attn.flatten().any().item()`)."""
    import torch

    def real(name, value):
        if not isinstance(value, torch.Tensor):
            return value
        held = mode.input_values.get(id(value)) if mode is not None else None
        if held is not None:
            return held
        shape, dtype = tuple(value.shape), value.dtype
        if dtype.is_floating_point:
            return torch.randn(shape, dtype=dtype)
        if dtype == torch.bool or str(name).endswith("mask"):
            return torch.ones(shape, dtype=dtype)
        return torch.zeros(shape, dtype=dtype)

    return (tuple(real(i, value) for i, value in enumerate(args)),
            {name: real(name, value) for name, value in (kwargs or {}).items()})


@contextlib.contextmanager
def holding_input_values(mode, kwargs: dict):
    """Inputs added to `kwargs` inside (`added(more)` marks them) hold the values they are
    made with, as inputs made while the model was built do: the retry with real inputs
    reads those values (MiniCPM-OCR's vision tower, which fails without its patch grid
    `target_sizes`, then reads the grid's values), not zeros."""
    holds = mode is not None and hasattr(mode, "input_values")

    def added(more):
        if holds and more:
            for name, value in more.items():
                if value is not kwargs.get(name) and mode.is_our_fake(value) and \
                        value.constant is not None:
                    mode.input_values[id(value)] = value.constant
                    mode.forget_constant(value)
        return more

    if not holds:
        yield added
        return
    mode.computing_constants = True
    try:
        yield added
    finally:
        mode.computing_constants = False


def real_buffers(mode) -> None:
    """The model's non-persistent buffers that held values when its build ended become real
    tensors of those values. Such buffers are in no checkpoint: the model's own code computes
    them from the config (Mimi's convolutions' padding, rotary frequencies), small and within
    the build's constant budget; weights stay fake. For the retry with real inputs, so a
    branch on them is decided (Mimi pads by `padding_total`)."""
    for module, name, values in getattr(mode, "buffer_values", []):
        module._buffers[name] = values


def _drop_fake_references(tensor) -> None:
    """The weak references a fake tensor's mode keeps to it (to find the constants a write
    invalidates, to reuse a conversion) are dropped, and it holds no value any more."""
    converter = getattr(getattr(tensor, "fake_mode", None), "fake_tensor_converter", None)
    if converter is None:
        return
    mapping = converter.constant_storage_mapping
    for key, refs in list(mapping.items()):
        kept = [ref for ref in refs if ref() is not tensor]
        if kept:
            mapping[key] = kept
        else:
            del mapping[key]
    memo = getattr(getattr(converter, "meta_converter", None), "tensor_memo", None)
    if memo is not None:
        for key in [key for key, value in list(memo.items()) if value is tensor]:
            del memo[key]
    tensor.constant = None


def _swaps_fake_tensors() -> None:
    """Module._apply (a model calling `.to(dtype)` on a module, while it is built or in
    forward, which torch.export traces on its own fake tensors) swaps each parameter with its
    converted copy, and torch refuses while any weak reference points at either; for fake
    tensors only their mode's bookkeeping does. Installed for the rest of the process (the
    export follows the build); real tensors are swapped as before."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensor

    swap_tensors = torch.utils.swap_tensors
    if getattr(swap_tensors, "releases_fake_tensors", False):
        return

    def swap(first, second):
        if _aliases(first, second):
            # `.to(dtype)` of a module already in that dtype (in forward, while torch.export
            # traces: its tracer holds weak references to every tensor): nothing to swap.
            return None
        for tensor in (first, second):
            if isinstance(tensor, FakeTensor):
                _drop_fake_references(tensor)
        return swap_tensors(first, second)

    swap.releases_fake_tensors = True
    torch.utils.swap_tensors = swap


def _aliases(first, second) -> bool:
    """The two tensors are views of the same storage with the same metadata."""
    try:
        return (first.untyped_storage()._cdata == second.untyped_storage()._cdata
                and first.dtype == second.dtype and first.device == second.device
                and first.shape == second.shape and first.stride() == second.stride()
                and first.storage_offset() == second.storage_offset()
                and first.requires_grad == second.requires_grad)
    except Exception:  # a tensor without storage
        return False


def _innermost_module(frames) -> str | None:
    """`Class` (and its method) of the innermost nn.Module method among `frames`, outermost
    first: the module that was being built or run."""
    import torch

    found = None
    for frame in frames:
        owner = frame.f_locals.get("self")
        if isinstance(owner, torch.nn.Module):
            found = f"{type(owner).__name__}.{frame.f_code.co_name}"
    return found


def _traceback_frames(exc: BaseException) -> list:
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    return frames


def reading_module(exc: BaseException) -> str | None:
    """The module whose code raised `exc` (or the exception it wraps), e.g.
    `ConvNextV2Stage.__init__`."""
    seen = exc
    for _ in range(8):
        if seen is None:
            return None
        found = _innermost_module(_traceback_frames(seen))
        if found:
            return found
        seen = seen.__cause__ or seen.__context__
    return None


def _current_frames() -> list:
    frames = []
    frame = sys._getframe(1)
    while frame is not None:
        frames.append(frame)
        frame = frame.f_back
    return frames[::-1]


def gigabytes(size: int) -> str:
    return f"{size / 1e9:.1f} GB"


def state_bytes(model) -> int:
    """Bytes the model's parameters and buffers take with data (a tied tensor once)."""
    import torch

    if not isinstance(model, torch.nn.Module):
        return 0
    seen = {}
    for tensor in [*model.parameters(), *model.buffers()]:
        seen[id(tensor)] = tensor.numel() * tensor.element_size()
    return sum(seen.values())


def _factory_bytes(func, args, kwargs) -> int:
    """Bytes a factory op would make, from a run on the meta device (no data, no memory)."""
    try:
        out = func(*args, **dict(kwargs, device="meta"))
    except Exception:  # an op without a device argument: sized by a real run, once
        out = func(*args, **kwargs)
    return sum(t.numel() * t.element_size() for t in _tensors(out))


class WeightsAtMost:
    """While entered: tensors made from nothing (parameters, buffers, inputs: factories such
    as empty, zeros, randn) stop at `limit` bytes in all, before the one that passes it is
    made. `refusal` is then the ExportError raised: `message` and the module being built.
    The model's code may wrap it into its own exception; the caller checks `refusal`."""

    def __init__(self, limit: int, message: str):
        self.limit, self.message = limit, message
        self.refusal: ExportError | None = None
        self._mode = None

    def __enter__(self):
        from torch.utils._python_dispatch import TorchDispatchMode

        bound = self

        class _Bounded(TorchDispatchMode):
            total = 0

            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                kwargs = kwargs or {}
                if not _tensors((args, kwargs)):
                    self.total += _factory_bytes(func, args, kwargs)
                    if self.total > bound.limit:
                        module = _innermost_module(_current_frames())
                        where = f" (passed while building {module})" if module else ""
                        bound.refusal = ExportError(f"{bound.message}{where}")
                        raise bound.refusal
                return func(*args, **kwargs)

        self._mode = _Bounded()
        self._mode.__enter__()
        return self

    def __exit__(self, *exc_info):
        return self._mode.__exit__(*exc_info)
