"""Models whose forward() takes an inference session, not tensors (`hf:` targets, issue 25).

SAM 2's, SAM 3 Tracker's and EdgeTAM's video models track objects through a streamed video:
forward(inference_session, frame_idx, frame) reads the objects' prompts and the memory of
earlier frames from a session object their processor makes (`init_video_session`, then
`add_inputs_to_inference_session`), and writes the new frame's memory into it. The rule: a
required forward() argument whose class the model's own module defines (not a tensor, not a
module) is such a session. It is made as the processor makes it (the model's dtype, the
video as large as the config's image), one object is prompted with a click at the centre of
a first frame, and forward runs on that frame (weightless: on fake tensors, no weight data).
The export is then forward on the next frame, the tracking step every later frame takes
(the memory attention reads the first frame's memory): its inputs are the frame and every
tensor the session holds (memory features, object pointers, the prompt), named by where the
session holds them; each call copies the primed session and puts its inputs in. The model is
exported itself, its forward() closing over the session, so its module names are its own.
"""

from __future__ import annotations

import copy
import inspect
import re

from opscope_export.errors import ExportError, describe

# The frame forward() is first prompted on, and the one exported (tracked with its memory).
PROMPTED_FRAME, TRACKED_FRAME = 0, 1


def session_parameter(model) -> tuple[str, type] | None:
    """(name, class) of forward()'s inference-session argument: a required argument
    annotated with a class the model's own module defines that is neither a tensor nor a
    module; None when forward() takes none."""
    import sys

    import torch

    try:
        parameters = inspect.signature(model.forward).parameters
    except (TypeError, ValueError):
        return None
    own = sys.modules.get(type(model).__module__)
    for name, parameter in parameters.items():
        annotation = parameter.annotation
        if parameter.default is not inspect.Parameter.empty or \
                parameter.kind not in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY):
            continue
        if isinstance(annotation, type) and own is not None and \
                getattr(own, annotation.__name__, None) is annotation and \
                not issubclass(annotation, (torch.Tensor, torch.nn.Module)):
            return name, annotation
    return None


def session_inputs(model, given: dict, target: str) -> dict:
    """Keyword inputs of the tracking step (the frame, and the primed session's tensors by
    name); sets `model.forward` to the step, closing over the session (module docstring).
    Call under the build's tensor mode; `given` (--input NAME=SPEC) may replace the frame."""
    import torch

    from opscope_export.hf_inputs import _image

    name, session_class = session_parameter(model)
    what = f"{type(model).__name__}.forward() takes a `{session_class.__name__}`"
    step = inspect.unwrap(type(model).forward)  # without @torch.inference_mode
    parameters = inspect.signature(step).parameters
    if "frame" not in parameters or "frame_idx" not in parameters:
        raise ExportError(f"{target}: {what}, not a streamed video's frame and frame_idx; "
                          "opscope makes only those sessions from a config")
    frame = given.pop("frame", None)
    if frame is None:
        frame = _image(model.config)
    if given:
        raise ExportError(f"{target}: {what}; --input can give its `frame` only, not "
                          f"{', '.join(sorted(given))}")
    session = _prompted_session(model, session_class, frame, what, target)
    try:
        with torch.no_grad():
            step(model, session, frame_idx=PROMPTED_FRAME, frame=frame)
    except Exception as exc:
        raise ExportError(f"{target}: {what}; running it on a first prompted frame failed: "
                          f"{describe(exc)}") from exc
    state = _named_tensors(session, session_class.__module__, taken={"frame"})
    name_of = {id(tensor): name for name, tensor in state.items()}

    def tracking_step(frame, **inputs):
        primed = _copy_with(session, session_class.__module__,
                            {held: inputs[name] for held, name in name_of.items()})
        return step(model, primed, frame_idx=TRACKED_FRAME, frame=frame)

    tracking_step.__doc__ = step.__doc__
    model.forward = tracking_step
    return {"frame": frame, **state}


def _prompted_session(model, session_class, frame, what: str, target: str):
    """The session as the processor makes it, with one object clicked at the frame's
    centre (a positive point in the model's input coordinates, as the processor passes
    them)."""
    import torch

    height, width = frame.shape[-2:]
    wanted = {"dtype": getattr(model, "dtype", torch.float32), "video_height": int(height),
              "video_width": int(width)}
    try:
        accepted = inspect.signature(session_class).parameters
        session = session_class(**{key: value for key, value in wanted.items()
                                   if key in accepted})
    except Exception as exc:
        raise ExportError(f"{target}: {what}, which cannot be made from the config: "
                          f"{describe(exc)}") from exc
    if not (callable(getattr(session, "obj_id_to_idx", None)) and
            callable(getattr(session, "add_point_inputs", None))):
        raise ExportError(f"{target}: {what}, which takes no point prompt "
                          "(obj_id_to_idx, add_point_inputs); opscope cannot prompt it")
    obj_id = 0
    index = session.obj_id_to_idx(obj_id)
    session.add_point_inputs(index, PROMPTED_FRAME, {
        "point_coords": torch.tensor([[[[width / 2, height / 2]]]], dtype=torch.float32),
        "point_labels": torch.ones(1, 1, 1, dtype=torch.int32)})
    session.obj_with_new_inputs = [obj_id]
    return session


def _children(value, module: str):
    """(key, child) pairs of a container the session holds: a dict's items, a list's or
    tuple's elements, the attributes of an object of the session's own module; else None."""
    if isinstance(value, dict):
        return list(value.items())
    if isinstance(value, (list, tuple)):
        return list(enumerate(value))
    if type(value).__module__ == module and hasattr(value, "__dict__"):
        return list(vars(value).items())
    return None


def _walk(value, module: str, path: tuple = ()):
    """(path, tensor) of every tensor under `value`, in order."""
    import torch

    if isinstance(value, torch.Tensor):
        yield path, value
        return
    for key, child in _children(value, module) or []:
        yield from _walk(child, module, (*path, key))


def _named_tensors(session, module: str, taken: set[str]) -> dict:
    """Every tensor the session holds, once, by an input name from where it holds it first:
    `output_dict_per_obj_0_cond_frame_outputs_0_maskmem_features`."""
    named, seen = {}, set()
    for path, tensor in _walk(session, module):
        if id(tensor) in seen:
            continue
        seen.add(id(tensor))
        name = re.sub(r"\W+", "_", "_".join(str(key).strip("_") for key in path)).strip("_")
        name = name if name and not name[0].isdigit() else f"state_{name}"
        unique, count = name, 1
        while unique in taken:
            count += 1
            unique = f"{name}_{count}"
        taken.add(unique)
        named[unique] = tensor
    return named


def _copy_with(value, module: str, replacing: dict):
    """A copy of the session's containers, each tensor replaced by `replacing[id(tensor)]`:
    the tracking step writes into its own copy, never into the primed session."""
    import torch

    if isinstance(value, torch.Tensor):
        return replacing.get(id(value), value)
    children = _children(value, module)
    if children is None:
        return value
    copied = {key: _copy_with(child, module, replacing) for key, child in children}
    if isinstance(value, dict):
        made = copy.copy(value)  # its class (OrderedDict) kept
        made.clear()
        made.update(copied)
        return made
    if isinstance(value, (list, tuple)):
        return type(value)(copied[index] for index in range(len(value)))
    made = copy.copy(value)
    vars(made).update(copied)
    return made
