"""The projected size (issue 10 item 4) against coreai-opt: for each config of size_cases.py,
`opscope explain --json`'s "size" must give the bits per weight, total bits and total
weights that `coreai_opt.inspection.bits_per_weight()` reports for the model after
`Quantizer(...).prepare()` (eager) or `KMeansPalettizer(...).prepare()`, within 0.01 bpw.
Also the index's parameters (names, tied aliases, shapes, dtypes) in both modes against the
model's own named_parameters() / named_buffers(). Prints its times."""

from __future__ import annotations

import contextlib
import copy
import io
import json
import logging
import subprocess
import time

import pytest

from conftest import build_fixture_model
from size_cases import CASES

FLAT_CASES = [(name, label, config) for name, cases in CASES for label, config in cases]


@pytest.fixture(scope="module")
def index_file(fixture_archive, inspect_worker, tmp_path_factory):
    outdir = tmp_path_factory.mktemp("size")
    cache: dict = {}

    def get(name: str, mode: str) -> str:
        if (name, mode) not in cache:
            path = str(outdir / f"{name}.{mode}.json")
            proc = subprocess.run([inspect_worker, fixture_archive(name), "--mode", mode,
                                   "-o", path], capture_output=True, text=True, timeout=300)
            assert proc.returncode == 0, proc.stderr
            cache[(name, mode)] = path
        return cache[(name, mode)]

    return get


def compressed_names(prepared) -> set[str]:
    """Every name of every tensor prepare() registered a weight compressor on."""
    from torch.nn.utils import parametrize

    from coreai_opt.inspection._bpw_utils import get_weight_compressor

    out = set()
    for module_name, module in prepared.named_modules():
        if parametrize.is_parametrized(module):
            for tensor_name, chain in module.parametrizations.items():
                if get_weight_compressor(chain) is not None:
                    out.add(f"{module_name}.{tensor_name}" if module_name else tensor_name)
    return out


def coreai_bits_per_weight(name: str, config: dict):
    from coreai_opt.inspection import bits_per_weight
    from coreai_opt.palettization import KMeansPalettizer, KMeansPalettizerConfig
    from coreai_opt.quantization import Quantizer, QuantizerConfig

    model, args = build_fixture_model(name)
    logging.disable(logging.WARNING)  # "multiple spec keys matched" and the like
    try:
        with contextlib.redirect_stderr(io.StringIO()):  # the palettizer's progress bar
            if "quantization_config" in config:
                compressor = Quantizer(model, QuantizerConfig.from_dict(copy.deepcopy(config)))
            else:
                compressor = KMeansPalettizer(
                    model, KMeansPalettizerConfig.from_dict(copy.deepcopy(config)))
            prepared = compressor.prepare(args)
            return bits_per_weight(prepared), compressed_names(prepared)
    finally:
        logging.disable(logging.NOTSET)


@pytest.mark.parametrize("name,label,config", FLAT_CASES,
                         ids=[f"{n}-{l}" for n, l, _ in FLAT_CASES])
def test_projected_size_is_what_bits_per_weight_reports(name, label, config, index_file,
                                                        opscope_bin, tmp_path, coreai_opt):
    config_path = tmp_path / f"{label}.json"
    config_path.write_text(json.dumps(config, indent=2))
    started = time.monotonic()
    proc = subprocess.run([opscope_bin, "explain", str(config_path), "--model",
                           index_file(name, "eager"), "--json"],
                          capture_output=True, text=True, timeout=60)
    explain_seconds = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr
    size = json.loads(proc.stdout)["size"]
    assert "unavailable" not in size, size

    started = time.monotonic()
    expected, compressed = coreai_bits_per_weight(name, config)
    prepare_seconds = time.monotonic() - started
    print(f"\n{name}/{label}: opscope {size['bits_per_weight']['after']:.4f} bpw, coreai-opt "
          f"{expected.bpw:.4f} bpw; explain {explain_seconds:.2f} s, prepare "
          f"{prepare_seconds:.1f} s")
    assert size["weights"] == expected.total_weights
    assert size["bits_per_weight"]["after"] == pytest.approx(expected.bpw, abs=0.01)
    assert size["bits"]["after"] == expected.total_bits
    assert size["bits_per_weight"]["after"] < size["bits_per_weight"]["before"]
    # The same config written in a training script (a from_dict call) projects the same size:
    # its specs come from the Python reader, not a YAML scan of Python text.
    config_class = ("QuantizerConfig" if "quantization_config" in config
                    else "KMeansPalettizerConfig")
    script = tmp_path / f"{label}.py"
    script.write_text(f"config = {config_class}.from_dict({config!r})\n")
    proc_python = subprocess.run([opscope_bin, "explain", str(script), "--model",
                                  index_file(name, "eager"), "--json"],
                                 capture_output=True, text=True, timeout=60)
    assert proc_python.returncode == 0, proc_python.stderr
    assert json.loads(proc_python.stdout)["size"] == size
    # explain's ops are the compressor's own eager calls: an op that reads weights is left in
    # full precision exactly when prepare() compressed none of them.
    with open(index_file(name, "eager"), encoding="utf-8") as f:
        index = json.load(f)
    weights_of = {op["name"]: [edge["producer"] for edge in op["inputs"] if edge.get("state")]
                  for op in index["ops"]}
    buffers = {n for p in index["parameters"] if p.get("buffer")
               for n in [p["name"], *p.get("aliases", [])]}
    wrong = []
    for row in json.loads(proc.stdout)["ops"]:
        weights = [w for w in weights_of[row["op_name"]] if w not in buffers]
        if weights and row["full_precision"] == any(w in compressed for w in weights):
            wrong.append(f"{row['op_name']} reads {weights}: opscope full_precision="
                         f"{row['full_precision']}, prepare() compressed "
                         f"{[w for w in weights if w in compressed]}")
    # And explain's parameters: a spec exactly for the tensors prepare() compressed.
    for row in json.loads(proc.stdout)["parameters"]:
        if any(n in buffers for n in row["names"]):
            continue
        applied = any(n in compressed for n in row["names"])
        if applied != (row["spec"] is not None):
            wrong.append(f"{row['parameter']}: opscope spec {row['spec']} "
                         f"({row.get('not_applied', '')}), prepare() compressed it: {applied}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("name", ["tied_embedding", "resnet18"])
@pytest.mark.parametrize("mode", ["graph", "eager"])
def test_index_lists_the_models_parameters(name, mode, index_file):
    model, _ = build_fixture_model(name)
    expected: dict[int, dict] = {}
    for is_buffer, named in ((False, model.named_parameters(remove_duplicate=False)),
                             (True, model.named_buffers(remove_duplicate=False))):
        for param_name, tensor in named:
            entry = expected.setdefault(id(tensor), {
                "name": param_name, "aliases": [], "shape": list(tensor.shape),
                "dtype": str(tensor.dtype).removeprefix("torch."), "buffer": is_buffer})
            if entry["name"] != param_name:
                entry["aliases"].append(param_name)
    with open(index_file(name, mode), encoding="utf-8") as f:
        index = json.load(f)
    actual = [{"name": p["name"], "aliases": p.get("aliases", []), "shape": p["shape"],
               "dtype": p["dtype"], "buffer": p.get("buffer", False)}
              for p in index["parameters"]]
    assert actual == list(expected.values())
    # Every state an op reads is a listed parameter, under one of its names.
    names = {n for p in actual for n in [p["name"], *p["aliases"]]}
    read = {edge["producer"] for op in index["ops"] for edge in op["inputs"] if edge.get("state")}
    assert read and read <= names, sorted(read - names)


# The Llama cases, one entry each: the Linear type key every name key shadows, a name
# key before its parent's, a key taking part of another's modules, and the RMSNorm `model.norm`.
# Every entry its own spec signature, so each compressed tensor says which entry decided it:
# (n_bits, enable_per_channel_scale) for the palettizer, the weight dtype for the eager
# Quantizer (per-tensor where an entry reaches RMSNorm's 1-D scales).
GOVERN_CASES = {
    "palettizer": {
        "global": (8, False),
        "types": {"torch.nn.modules.linear.Linear": (3, False)},
        "names": {r"model\.layers\.1\.mlp\.down_proj": (2, False),
                  r"model\.layers\.\d+": (4, False), r"model\.layers\.1\.mlp": (6, False),
                  "lm_head": (6, True), r"model\.norm": (4, True)},
    },
    "eager-quantizer": {
        "global": "int8",
        "types": {"torch.nn.modules.linear.Linear": "int2"},
        "names": {r"model\.layers\.1\.mlp\.down_proj": "uint2", r"model\.layers\.\d+": "int4",
                  r"model\.layers\.1\.mlp": "uint4", "lm_head": "int6", r"model\.norm": "uint8"},
    },
}


def governing_config(label: str) -> dict:
    from size_cases import pal, palettizer, q, qmodule, quantizer

    def spec(signature):
        if label == "palettizer":
            bits, scaled = signature
            return pal(bits, enable_per_channel_scale=True) if scaled else pal(bits)
        return qmodule(q(signature, {"type": "per_tensor"}))

    case = GOVERN_CASES[label]
    build = palettizer if label == "palettizer" else quantizer
    return build(spec(case["global"]), types={k: spec(s) for k, s in case["types"].items()},
                 names={k: spec(s) for k, s in case["names"].items()})


def applied_signatures(label: str, config: dict) -> set:
    """The spec signatures prepare() gives the tiny Llama's tensors under `config`."""
    from torch.nn.utils import parametrize

    from coreai_opt.inspection._bpw_utils import get_weight_compressor
    from coreai_opt.palettization import KMeansPalettizer, KMeansPalettizerConfig
    from coreai_opt.quantization import Quantizer, QuantizerConfig

    model, args = build_fixture_model("hf_llama")
    logging.disable(logging.WARNING)
    try:
        with contextlib.redirect_stderr(io.StringIO()):  # the palettizer's progress bar
            if label == "palettizer":
                compressor = KMeansPalettizer(
                    model, KMeansPalettizerConfig.from_dict(copy.deepcopy(config)))
            else:
                compressor = Quantizer(model, QuantizerConfig.from_dict(copy.deepcopy(config)))
            prepared = compressor.prepare(args)
    finally:
        logging.disable(logging.NOTSET)
    applied = set()
    for _, module in prepared.named_modules():
        if parametrize.is_parametrized(module):
            for chain in module.parametrizations.values():
                if (found := get_weight_compressor(chain)) is None:
                    continue
                applied.add((found.n_bits, bool(found.enable_per_channel_scale))
                            if label == "palettizer"
                            else str(found.dtype).removeprefix("torch."))
    return applied


@pytest.mark.parametrize("label", list(GOVERN_CASES))
def test_check_says_which_entries_govern_nothing(label, index_file, opscope_bin, tmp_path,
                                                 coreai_opt):
    """`opscope check --json` on a palettizer / eager Quantizer config for the tiny Llama: the
    entries it calls `overridden` or `no-effect` are exactly those whose spec prepare() gives
    no tensor, and a `partly-overridden` entry's spec is applied."""
    config = governing_config(label)
    case = GOVERN_CASES[label]
    entry_spec = {**case["types"], **case["names"]}
    text = json.dumps(config, indent=2)
    config_path = tmp_path / f"{label}-overrides.json"
    config_path.write_text(text)
    lines = text.splitlines()
    line_of = {}  # 1-based line of each entry's key
    for key in entry_spec:
        written = json.dumps(key) + ":"
        line_of[key] = next(i + 1 for i, line in enumerate(lines)
                            if line.strip().startswith(written))

    started = time.monotonic()
    proc = subprocess.run([opscope_bin, "check", str(config_path), "--model",
                           index_file("hf_llama", "eager"), "--json"],
                          capture_output=True, text=True, timeout=60)
    check_seconds = time.monotonic() - started
    assert proc.returncode == 0, proc.stdout + proc.stderr
    codes: dict[str, set[str]] = {key: set() for key in entry_spec}
    for line in proc.stdout.splitlines():
        diagnostic = json.loads(line)
        for key, at in line_of.items():
            if diagnostic["range"]["start"][0] == at:  # [line, column], 1-based lines
                codes[key].add(diagnostic["code"])

    started = time.monotonic()
    applied = applied_signatures(label, config)
    prepare_seconds = time.monotonic() - started

    governs_nothing = {key for key, signature in entry_spec.items() if signature not in applied}
    said_nothing = {key for key, found in codes.items() if found & {"overridden", "no-effect"}}
    print(f"\nhf_llama {label}: check {check_seconds:.2f} s, prepare {prepare_seconds:.1f} s; "
          f"diagnostics {codes}; applied specs {sorted(applied)}")
    assert said_nothing == governs_nothing, (codes, sorted(applied))
    # The cases, so that a config change cannot make the comparison vacuous.
    assert "overridden" in codes["torch.nn.modules.linear.Linear"]
    assert "overridden" in codes[r"model\.layers\.1\.mlp\.down_proj"]
    assert "partly-overridden" in codes[r"model\.layers\.\d+"]
    assert entry_spec[r"model\.layers\.\d+"] in applied
    # RMSNorm computes with mul: the palettizer leaves it alone, the eager Quantizer does not.
    assert ("no-effect" in codes[r"model\.norm"]) == (label == "palettizer")
