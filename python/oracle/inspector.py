"""Run coreai-opt's ModelInspector on a fixture (or any TARGET) exactly as a user would,
and return canonical forms (canonical.py)."""

from __future__ import annotations

import os
import sys

_PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _PYTHON_DIR not in sys.path:
    sys.path.insert(0, _PYTHON_DIR)

from oracle.canonical import from_summary  # noqa: E402
from opscope_export.export import ExportRequest, build_model_and_inputs  # noqa: E402
from opscope_export.specs import parse_input_spec  # noqa: E402


def compressor_class(name):
    """None, or coreai-opt's compressor class for a name ("quantizer", "kmeanspalettizer")."""
    if name is None or isinstance(name, type):
        return name
    key = name.lower()
    if key == "quantizer":
        from coreai_opt.quantization import Quantizer

        return Quantizer
    if key in ("kmeanspalettizer", "palettizer", "kmeans"):
        from coreai_opt.palettization import KMeansPalettizer

        return KMeansPalettizer
    raise ValueError(f"no coreai-opt compressor {name!r}")


def build_target(target: str, input_specs, seed: int = 0, eval_mode: bool = False):
    """(model, example args) the way the export helper builds them: same seed, same inputs."""
    request = ExportRequest(target=target, output="", seed=seed, eval_mode=eval_mode,
                            inputs=[parse_input_spec(text) for text in input_specs])
    model, args, kwargs = build_model_and_inputs(request)
    if kwargs:
        raise ValueError("ModelInspector takes positional example inputs only")
    return model, args


def oracle_canonicals(model, example_inputs, mode: str, compressors=(None,)) -> dict:
    """{compressor name or None: canonical form of ModelInspector's summary}.

    Graph mode exports once with coreai-opt's own export_model (what ModelInspector does
    for an nn.Module) and hands the GraphModule to ModelInspector per compressor.
    """
    import torch
    from coreai_opt.inspection import ModelInspector
    from coreai_opt._utils.torch_utils import export_model

    results = {}
    if mode == "graph":
        graph_module = export_model(model, tuple(example_inputs), None, True)
        for name in compressors:
            inspector = ModelInspector(graph_module, None, execution_mode="graph",
                                       compressor=compressor_class(name))
            results[name] = from_summary(inspector.summary)
    elif mode == "eager":
        for name in compressors:
            with torch.no_grad():
                inspector = ModelInspector(model, tuple(example_inputs), execution_mode="eager",
                                           compressor=compressor_class(name))
            results[name] = from_summary(inspector.summary)
    else:
        raise ValueError(f"mode must be graph or eager, not {mode!r}")
    return results
