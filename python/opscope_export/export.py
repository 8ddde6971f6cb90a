"""Build the model and its example inputs, torch.export them, save the `.pt2` archive.

The export call mirrors coreai-opt's `export_model` (coreai_opt/_utils/torch_utils.py):
`torch.export.export(model, example_inputs)` under `torch.no_grad()`, so the op names in the
archive are the names coreai-opt's graph mode gives the same model.
"""

from __future__ import annotations

import contextlib
import gc
import io
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field

from opscope_export.errors import ExportError, describe, describe_os_error, one_line, shorten
from opscope_export.save import save_program, unserializable
from opscope_export.specs import InputSpec, make_inputs
from opscope_export.hf_target import is_hf_target
from opscope_export.target import forward_signature, load_target, split_target
from opscope_export.torch_check import require_torch

EXPORT_HINT = (
    "hint: check the --input shapes and dtypes match forward(); data-dependent Python "
    "control flow (if/for on tensor values) cannot be exported: rewrite it with torch.cond "
    "or move it out of forward(); see the torch.export docs on non-strict mode "
    "(strict=False) and dynamic shapes: https://docs.pytorch.org/docs/stable/export.html"
)


@dataclass
class ExportRequest:
    target: str
    output: str
    inputs: list[InputSpec] = field(default_factory=list)
    seed: int = 0
    eval_mode: bool = False
    # Run the model once more to store eager mode's record (docs/EAGER_MODE.md). Off for
    # graph mode: on a 96-layer GPT it cost as much as a third of the export.
    record_eager: bool = False
    # torch.export the model (graph mode). An eager-only archive skips it: eager mode reads
    # only the record, and the export was four fifths of an eager-mode export's time.
    export_graph: bool = True
    # Build the model on fake tensors: no weight data is made or saved; every op, module,
    # shape and dtype stays (tests/fidelity/test_weightless.py holds the names equal). The
    # default: names never need weights, and a 70B-shaped model's would not fit in memory.
    # A model that reads tensor values falls back to real weights (_weightless_program).
    weightless: bool = True
    hf_class: str | None = None  # for hf: targets: the transformers class to build


@dataclass
class ExportResult:
    archive: str
    torch_version: str
    model_type: str
    training: bool
    inputs: list[dict]
    modes: list[str]  # the --mode values `opscope index` can use on this archive
    weightless: bool = False  # the archive holds no weight data
    # Why a weightless export was not possible (the export then used real weights).
    fallback: str | None = None
    # For an hf: target without --hf-class: the class built instead of the default one, and
    # why (the default class failed).
    built_instead: str | None = None
    # torch.export could not trace the model (why): the archive holds its module names and
    # state only (untraced.py).
    untraced: str | None = None


def build_model_and_inputs(request: ExportRequest):
    """(model, args, kwargs), deterministic for a given seed: the oracle rebuilds them the same way.
    Tensors are made under the current tensor mode (fake tensors for a weightless export)."""
    import torch

    torch.manual_seed(request.seed)
    if is_hf_target(request.target):
        from opscope_export.hf_inputs import example_inputs
        from opscope_export.hf_target import build_model

        model = build_model(request.target, request.hf_class)
        example_args = None
    else:
        loaded = load_target(request.target)
        model, example_args = loaded.module, loaded.example_args
    if request.eval_mode:
        model.eval()
    torch.manual_seed(request.seed)
    if is_hf_target(request.target) and all(spec.keyword for spec in request.inputs):
        # NAME=SPEC inputs add to (or replace) those made from the config.
        given = make_inputs(request.inputs)[1]
        try:
            args, kwargs = (), example_inputs(model, given, request.target)
        except ExportError as exc:  # an input no config sizes: the names are known all the same
            raise _keeping_names(request, model, exc)
    elif request.inputs:
        args, kwargs = make_inputs(request.inputs)
    elif example_args is not None:
        args, kwargs = example_args, {}
    else:
        raise ExportError(
            f"{request.target}: no example inputs; pass one --input SHAPE[:DTYPE[:LO..HI]] per "
            f"argument of {type(model).__name__}.{forward_signature(model)}, e.g. "
            "--input 1x3x224x224 --input 1x8:int64:0..100"
        )
    return model, args, kwargs


def _describe_input(value) -> dict:
    import torch

    if isinstance(value, torch.Tensor):
        return {"shape": list(value.shape), "dtype": str(value.dtype).replace("torch.", "")}
    return {"python": type(value).__name__}


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def _rare_full_collections():
    """Young-generation collections only, while building, exporting and saving: the
    export makes millions of long-lived objects, and Python's full collections walk all of
    them again and again (on a 96-layer GPT about a tenth of the export and half the save).
    Short-lived cycles are still collected; peak memory grew by about 1%."""
    previous = gc.get_threshold()
    gc.set_threshold(100_000, 50, 1000)
    try:
        yield
    finally:
        gc.set_threshold(*previous)


def export_archive(request: ExportRequest) -> ExportResult:
    split_target(request.target)  # a malformed TARGET is reported before torch loads
    torch_version = require_torch()
    with _rare_full_collections():
        try:
            if not is_hf_target(request.target) or request.hf_class:
                return _export_archive(request, torch_version)
            return _export_some_class(request, torch_version)
        except ExportError as exc:
            untraced = getattr(exc, "untraced", None)
            if untraced is None:
                raise
        # No class of the config traces: its module names and state still serve every
        # module-name config (untraced.py).
        return _untraced_archive(request, torch_version, untraced)


def _untraced_archive(request: ExportRequest, torch_version: str,
                      untraced: "_Untraced") -> ExportResult:
    output = _write_archive(request, None, untraced.files)
    return ExportResult(archive=output, torch_version=torch_version,
                        model_type=untraced.model_type, training=False, inputs=[], modes=[],
                        weightless=True, untraced=untraced.reason)


def _export_some_class(request: ExportRequest, torch_version: str) -> ExportResult:
    """The default class of an hf: target, else the first other class of the model that
    exports (Llama4ForConditionalGeneration's forward fails in transformers 5.24: its text
    model, Llama4ForCausalLM, is built from the text_config), saying so; the default class's
    error when none does."""
    import dataclasses

    from opscope_export.hf_target import alternative_classes

    try:
        return _export_archive(request, torch_version)
    except ExportError as exc:
        if "cannot write the archive" in str(exc):  # every class would fail to
            raise
        # Only its message: the exception's frames hold the model that failed.
        first = one_line(str(exc))
        untraced = getattr(exc, "untraced", None)
    tried = alternative_classes(request.target)
    for name in tried:
        try:
            result = _export_archive(dataclasses.replace(request, hf_class=name), torch_version)
        except ExportError:
            continue
        why = first.removeprefix(f"{request.target}: ")
        result.built_instead = (f"exported {name} (--hf-class {name}) instead of the "
                                f"default class, which failed: {shorten(why, max_chars=300)}")
        return result
    error = ExportError(first + (f" (--hf-class {', '.join(tried)} failed too)" if tried else ""))
    error.untraced = untraced
    raise error


class _ExportFailed(ExportError):
    """torch.export failed on the model that was built."""


def _keeping_names(request: ExportRequest, model, exc: ExportError) -> ExportError:
    """`exc`, carrying what an hf: graph export keeps of a model it cannot trace (its module
    names and state, untraced.py), in case no other class of the config traces either."""
    if is_hf_target(request.target) and request.export_graph and not request.record_eager:
        from opscope_export.untraced import untraced_extra_files

        reason = str(exc).removeprefix(f"{request.target}: ").removeprefix(
            "torch.export failed: ").removesuffix(
            "; this class cannot be exported from its config alone")
        model_class = type(model)
        exc.untraced = _Untraced(untraced_extra_files(model, reason),
                                 f"{model_class.__module__}.{model_class.__qualname__}", reason)
    return exc


@dataclass
class _Untraced:
    """What an hf: export keeps of a model torch.export could not trace (untraced.py): the
    archive's files, its class and why; strings only, never the model."""
    files: dict[str, str]
    model_type: str
    reason: str


class _NeedsData(Exception):
    """The model cannot be built, exported or run on tensors without data."""

    def __init__(self, message: str, weight_bytes: int | None = None):
        super().__init__(message)
        self.weight_bytes = weight_bytes  # its weights' size with data, when it was built


# The most weight data a weightless export builds when the model needs data after all; past
# it the export stops and says which module read values, instead of running out of memory.
FALLBACK_LIMIT = 2 * 10**9  # bytes


def _export_program(request: ExportRequest, weightless: bool, fallback: str | None = None):
    """(model, args, kwargs, program, extra_files), built with or without weight data; a
    fallback (a real build because the weightless one failed, and why) stops at FALLBACK_LIMIT."""
    from opscope_export.data_free import data_free, state_bytes

    mode = None
    if weightless:
        with data_free() as mode:
            model, args, kwargs = build_model_and_inputs(request)
            mode.end_build(model, args, kwargs)
    else:
        bound = _weights_bound(request, fallback)
        try:
            with bound:
                model, args, kwargs = build_model_and_inputs(request)
        except Exception as exc:
            if getattr(bound, "refusal", None) is not None:
                raise bound.refusal from exc  # the factory may have wrapped it
            raise
    program = None
    if request.export_graph:
        try:
            program, kwargs = _torch_export(request, model, args, kwargs, mode)
        except _ExportFailed as exc:
            raise _keeping_names(request, model, exc)

    # Eager-mode names come from running the model once (docs/EAGER_MODE.md); never fails
    # the export: a model that cannot run records why, and only eager mode reports it.
    # Without data, a failure means the model reads tensor values: export it for real.
    from opscope_export.module_names import module_extra_files

    extra_files = module_extra_files(model)
    if request.record_eager:
        from opscope_export.eager_trace import eager_extra_files, eager_failure

        eager_files = eager_extra_files(model, args, kwargs)
        extra_files.update(eager_files)
        failure = eager_failure(eager_files)
        if weightless and failure:
            raise _NeedsData(f"the eager recording without weight data failed: {failure}",
                             state_bytes(model))
    return model, args, kwargs, program, extra_files


_MORE_INPUTS_ATTEMPTS = 3
# The retry with real inputs runs the model's ops on values too (torch's real-tensor
# propagation): what it allocates is bounded so that the process stays within this (SAM 3's
# 1008 x 1008 image took 13.8 GB; LightGlue's image pair 2.1 GB in one op).
REAL_RETRY_RESIDENT = 1536 * 2**20  # bytes


class _RetryTooLarge(Exception):
    """The retry with real inputs passed REAL_RETRY_RESIDENT."""


def _status_bytes(field: str) -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise OSError(f"/proc/self/status has no {field}")


@contextlib.contextmanager
def _resident_at_most(limit: int, untouched: int):
    """Bounds the retry's memory at `limit` resident bytes, two ways: allocations fail past
    the data the process has mapped now plus the headroom left and `untouched` (torch gives
    the weights real storage it never fills: mapped, not resident), so no single op passes
    it; and every 50 ms the resident memory is read, so a run of smaller ops does not either
    (the main thread only). Raises _RetryTooLarge; nothing is bounded where /proc cannot be
    read."""
    import resource
    import signal
    import threading

    try:
        headroom = max(limit - _status_bytes("VmRSS"), 0)
        previous = resource.getrlimit(resource.RLIMIT_DATA)
        bound = _status_bytes("VmData") + headroom + untouched
        if previous[1] != resource.RLIM_INFINITY:
            bound = min(bound, previous[1])
        resource.setrlimit(resource.RLIMIT_DATA, (bound, previous[1]))
    except (OSError, ValueError):
        yield
        return

    def check(signum, frame):
        if _status_bytes("VmRSS") > limit:
            signal.setitimer(signal.ITIMER_REAL, 0)
            raise _RetryTooLarge(f"resident memory passed {limit} bytes")

    timed = threading.current_thread() is threading.main_thread()
    if timed:
        handler = signal.signal(signal.SIGALRM, check)
        signal.setitimer(signal.ITIMER_REAL, 0.05, 0.05)
    try:
        yield
    except MemoryError as exc:
        raise _RetryTooLarge(f"resident memory would pass {limit} bytes") from exc
    except RuntimeError as exc:
        if "can't allocate memory" in str(exc) or "not enough memory" in str(exc):
            raise _RetryTooLarge(f"resident memory would pass {limit} bytes") from exc
        raise
    finally:
        if timed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, handler)
        resource.setrlimit(resource.RLIMIT_DATA, previous)


def _stopped_at_bound(exc: BaseException) -> bool:
    seen = exc
    for _ in range(8):
        if seen is None:
            return False
        if isinstance(seen, (_RetryTooLarge, MemoryError)) or \
                "can't allocate memory" in str(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _torch_export(request: ExportRequest, model, args, kwargs, mode):
    """(program, kwargs): torch.export under no_grad. For an hf: target whose forward() fails
    for want of an argument that defaults to None (`You must specify exactly one of
    input_features or ...`; LongT5 without its attention_mask), the argument is made from the
    config, under the build's fake-tensor mode, and the export tried again (a few times).
    An hf: export that fails on a value torch.export cannot know is tried once more
    with real inputs and torch's real-tensor propagation (data_free.real_inputs): a branch on
    the inputs' values is then decided; one on the weights' values still fails."""
    import torch
    import torch._functorch.config as functorch_config

    from opscope_export.data_free import (holding_input_values, needs_data, real_buffers,
                                          real_inputs, state_bytes)

    # The failure reported: the model's own, not one of a retry's inputs; but a value torch
    # cannot know (a branch on the weights' values) once the retries got that far.
    first, data_error = None, None
    first_kwargs = data_kwargs = kwargs  # the inputs of the attempts that failed so
    attempt, real = 0, False
    while True:
        try:
            # A failed torch.export prints the partial graph it traced on sys.stderr (the
            # helper's stderr is one error line; OPSCOPE_DEBUG=1 keeps it).
            chatter = contextlib.redirect_stderr(io.StringIO()) \
                if os.environ.get("OPSCOPE_DEBUG") != "1" else contextlib.nullcontext()
            bound = _resident_at_most(REAL_RETRY_RESIDENT, state_bytes(model)) if real \
                else contextlib.nullcontext()
            with torch.no_grad(), chatter, functorch_config.patch(
                    fake_tensor_propagate_real_tensors=real), bound:
                return torch.export.export(model, args, kwargs=kwargs or None), kwargs
        except Exception as exc:
            if first is None:
                first, first_kwargs = exc, kwargs
            if needs_data(exc) and data_error is None:
                data_error, data_kwargs = exc, kwargs
            if real and _stopped_at_bound(exc):
                raise _ExportFailed(_too_large_to_decide(request, model, data_error)) \
                    from data_error
            if mode is not None and not real and needs_data(exc) and \
                    is_hf_target(request.target):
                # Only for configs, whose inputs opscope made: a user's model that branches
                # on its input's values is reported (the branch would follow random values).
                args, kwargs = real_inputs(mode, args, kwargs)
                real_buffers(mode)
                if not args:
                    from opscope_export.hf_inputs import precomputed_vision_inputs

                    kwargs = precomputed_vision_inputs(model, kwargs)
                real = True
                continue
            more = None
            if is_hf_target(request.target) and not args and attempt < _MORE_INPUTS_ATTEMPTS:
                from opscope_export.hf_inputs import inputs_wanted_by

                with mode if mode is not None else contextlib.nullcontext(), \
                        holding_input_values(mode, kwargs) as added:
                    more = added(inputs_wanted_by(model, kwargs, exc))
            attempt += 1
            if more is None:
                # Never a reason to fall back: torch.export traces on fake tensors (weights
                # and inputs alike) either way, and fails the same way with real weights.
                if data_error is not None:
                    first, first_kwargs = data_error, data_kwargs
                if real and data_error is not None:
                    raise _ExportFailed(_branch_on_weights(request, model, data_error)) \
                        from first
                hint = _hf_hint(first_kwargs) if is_hf_target(request.target) else EXPORT_HINT
                raise _ExportFailed(
                    f"{request.target}: torch.export failed: {_what_failed(first)}"
                    f"{_module_note(first)}; {_other_classes_hint(request, model)}{hint}") \
                    from first
            kwargs = more


def _what_failed(exc: BaseException) -> str:
    """`Type: message` of a failed torch.export; for Python code that read a traced tensor's
    elements (UDOP's `zip(*indices)`), what happened instead of torch's guess (`its data is
    not allocated yet ... tracing into a custom kernel`)."""
    if "data is not allocated yet" in str(exc):
        return ("the model's Python code reads a tensor's elements (iterates over it or "
                "converts it to Python values), which torch.export cannot trace")
    return f"{type(exc).__name__}: {shorten(str(exc), max_lines=3, max_chars=500)}"


def _hf_hint(kwargs: dict) -> str:
    """What to change when an hf: export fails in the model's own code: the inputs made
    from the config (as --input takes them), the class, or the config."""
    import torch

    made = ", ".join(f"{name}={'x'.join(map(str, value.shape))}:"
                     f"{str(value.dtype).replace('torch.', '')}"
                     for name, value in kwargs.items() if isinstance(value, torch.Tensor))
    return (f"hint: the inputs made from the config were {made or 'none'}; pass one otherwise "
            "with --input NAME=SHAPE[:DTYPE], choose another class with --hf-class, or give "
            "a released checkpoint's config.json (a default config's sizes may not fit "
            "together)")


_DATA_EXPRESSION = re.compile(r"data-dependent expression (.+?) \(unhinted")


def _too_large_to_decide(request: ExportRequest, model, exc: BaseException) -> str:
    """An hf: export that fails on a value torch.export cannot know, whose model was too
    large to run on real values within REAL_RETRY_RESIDENT (SAM 3: its 1008 x 1008 image)."""
    from opscope_export.data_free import gigabytes, reading_module

    match = _DATA_EXPRESSION.search(str(exc))
    expression = f" (data-dependent expression {shorten(match.group(1), max_chars=80)})" \
        if match else ""
    where = reading_module(exc) or type(model).__name__
    return (f"{request.target}: torch.export failed: {where} branches on a value torch "
            f"cannot know without data{expression}, and running the model on real values to "
            f"decide it passed the {gigabytes(REAL_RETRY_RESIDENT)} of memory a weightless "
            f"export may take; {_other_classes_hint(request, model)}give a config with "
            "fewer or smaller layers, or smaller inputs with --input NAME=SHAPE[:DTYPE]")


def _branch_on_weights(request: ExportRequest, model, exc: BaseException) -> str:
    """An hf: export that still fails on a value torch.export cannot know with real inputs:
    the model branches on values computed from its weights or buffers (the experts its
    router picks, an entropy of its logits), which a config does not have, or on the size of
    a value-dependent result (ViLT's patches sampled with multinomial on its mask). Without
    --hf-class the other classes are tried next (and named if they fail too)."""
    from opscope_export.data_free import reading_module

    match = _DATA_EXPRESSION.search(str(exc))
    expression = f" (data-dependent expression {shorten(match.group(1), max_chars=80)})" \
        if match else ""
    where = reading_module(exc) or type(model).__name__
    names = _other_classes_hint(request, model)
    return (f"{request.target}: torch.export failed: {where} branches on values that "
            f"real inputs do not decide{expression}: values computed from its weights or "
            "buffers, or the size of an op's result that depends on values (nonzero, "
            "multinomial, unique), which torch.export cannot trace; "
            f"{names or 'this class cannot be exported '}"
            f"{'' if names else 'from its config alone'}").rstrip("; ")


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [""])[0][:300]


def _other_classes_hint(request: ExportRequest, model) -> str:
    """For an hf: target built with --hf-class, other classes of the model that --hf-class
    can choose (without it, they are tried: _export_some_class)."""
    if not is_hf_target(request.target) or not request.hf_class:
        return ""
    from opscope_export.hf_target import other_classes

    names = other_classes(model)
    return f"another class of this model may export: --hf-class {' or '.join(names)}; " \
        if names else ""


def _module_note(exc: BaseException) -> str:
    """` (in Module.method)`: the module whose code raised `exc`, if any."""
    from opscope_export.data_free import reading_module

    module = reading_module(exc)
    return f" (in {module})" if module else ""


def _described_at(exc: BaseException) -> str:
    """`Type: first line`, and the module whose code raised it."""
    return f"{type(exc).__name__}: {_first_line(exc)}{_module_note(exc)}"


def _fallback_advice(request: ExportRequest) -> str:
    if is_hf_target(request.target):
        return ("a config has no weights to read: if the model needs them, try a smaller "
                "config (fewer layers) or another class (--hf-class)")
    return "export it with --with-weights on a machine with the memory"


def _weights_bound(request: ExportRequest, fallback: str | None):
    """A real build of a weightless request (the fallback) allocates at most FALLBACK_LIMIT."""
    if fallback is None:
        return contextlib.nullcontext()
    from opscope_export.data_free import WeightsAtMost, gigabytes

    return WeightsAtMost(FALLBACK_LIMIT, (
        f"{request.target}: cannot export without weight data ({fallback}), and "
        f"its real weights pass the {gigabytes(FALLBACK_LIMIT)} a weightless export may "
        f"allocate; {_fallback_advice(request)}"))


def _weightless_program(request: ExportRequest):
    """The weightless export, or None and why not (the caller then exports with weights,
    within FALLBACK_LIMIT). Only building or the eager recording can need data: a failed
    torch.export is reported as it is, and so is, for an hf: target, a build failure that
    does not come from missing data (a config's model would fail the same way)."""
    from opscope_export.data_free import gigabytes, needs_data

    hf = is_hf_target(request.target)
    try:
        return _export_program(request, True), None
    except _ExportFailed:
        raise
    except _NeedsData as exc:
        if exc.weight_bytes is not None and exc.weight_bytes > FALLBACK_LIMIT:
            raise ExportError(
                f"{request.target}: cannot export without weight data ({exc}), and its weights "
                f"would take {gigabytes(exc.weight_bytes)}, more than the "
                f"{gigabytes(FALLBACK_LIMIT)} a weightless export may allocate; "
                f"{_fallback_advice(request)}") from exc
        return None, str(exc)
    except ExportError as exc:
        if hf and not needs_data(exc):
            raise
        # Building failed without data; a real build may still work (a checkpoint loaded by
        # the factory, code reading tensor values). Errors that do not depend on data (a
        # wrong TARGET, a bad config) fail the same way again and are reported then.
        why = str(exc).removeprefix(f"{request.target}: ")
        note = _module_note(exc)
        return None, f"building it without weight data failed: {why}" + (
            note if note.strip() not in why else "")
    except Exception as exc:  # fake tensors' own errors (DataDependentOutputException, ...)
        if hf and not needs_data(exc):
            raise ExportError(f"{request.target}: building it failed: "
                              f"{_described_at(exc)}") from exc
        return None, f"building it without weight data failed: {_described_at(exc)}"


def _export_archive(request: ExportRequest, torch_version: str) -> ExportResult:
    fallback = None
    built = None
    if request.weightless:
        built, fallback = _weightless_program(request)
    if built is None:
        built = _export_program(request, False, fallback)
    model, args, kwargs, program, extra_files = built

    output = _write_archive(request, program, extra_files,
                            weightless=request.weightless and fallback is None)

    model_class = type(model)
    return ExportResult(
        archive=output,
        torch_version=torch_version,
        model_type=f"{model_class.__module__}.{model_class.__qualname__}",
        training=bool(model.training),
        inputs=[_describe_input(v) for v in args]
        + [dict(_describe_input(v), keyword=k) for k, v in kwargs.items()],
        modes=(["graph"] if request.export_graph else []) + (["eager"] if request.record_eager else []),
        weightless=request.weightless and fallback is None,
        fallback=fallback,
    )


def _write_archive(request: ExportRequest, program, extra_files: dict[str, str],
                   weightless: bool = True) -> str:
    """Writes the archive at request.output, whole or not at all; returns its absolute path."""
    output = os.path.abspath(request.output)
    directory = os.path.dirname(output)
    if not os.path.isdir(directory):
        raise ExportError(f"{request.output}: directory {directory} does not exist; create it first")
    # Write into a scratch folder next to the destination under the final file name (the
    # archive's inner folder is named after it), then rename: watchers never see half a file.
    scratch = None
    try:
        scratch = tempfile.mkdtemp(prefix=".opscope-export-", dir=directory)
        partial = os.path.join(scratch, os.path.basename(output))
        save_program(program, partial, extra_files, weightless=weightless)
        os.chmod(partial, 0o666 & ~_umask())
        os.replace(partial, output)
    except Exception as exc:
        what = describe_os_error(exc, directory) or unserializable(exc, program) or describe(exc)
        raise ExportError(f"{request.output}: cannot write the archive: {what}") from exc
    finally:
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)
    return output
