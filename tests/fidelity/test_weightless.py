"""A weightless export (the model built on fake tensors, without data) names exactly what a real export
names: the same index, op by op (name, type, module, inputs) and module by module, in graph
mode and in eager mode, for fixture models and for Hugging Face architectures built from
config files written here (`hf:` targets; nothing is downloaded).

ctest runs a representative subset (OPSCOPE_WEIGHTLESS_ALL=1 runs every fixture and
architecture: bench/weightless_equality.sh). Also: the fallback to a real export, and the
one-line errors for bad configs.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import zipfile

import pytest

from conftest import FIXTURE_NAMES, get_fixture

ALL = os.environ.get("OPSCOPE_WEIGHTLESS_ALL") == "1"

# Tiny configs: two layers, 32 wide; each as its hub config.json would say it.
_DECODER = {"vocab_size": 100, "hidden_size": 32, "num_hidden_layers": 2,
            "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 64,
            "max_position_embeddings": 64}
HF_CONFIGS = {
    "llama": ({"model_type": "llama", "architectures": ["LlamaForCausalLM"], **_DECODER}, None),
    "qwen2": ({"model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"], **_DECODER}, None),
    "mistral": ({"model_type": "mistral", "architectures": ["MistralForCausalLM"], **_DECODER},
                None),
    "phi3": ({"model_type": "phi3", "architectures": ["Phi3ForCausalLM"], "pad_token_id": 0,
              **_DECODER}, None),
    "gpt2": ({"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "vocab_size": 100,
              "n_embd": 32, "n_layer": 2, "n_head": 2, "n_positions": 64}, None),
    "bert": ({"model_type": "bert", "vocab_size": 100, "hidden_size": 32,
              "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64,
              "max_position_embeddings": 64}, None),
    "vit": ({"model_type": "vit", "architectures": ["ViTForImageClassification"],
             "image_size": 32, "patch_size": 8, "hidden_size": 32, "num_hidden_layers": 2,
             "num_attention_heads": 2, "intermediate_size": 64}, None),
    "t5_encoder": ({"model_type": "t5", "vocab_size": 100, "d_model": 32, "d_kv": 8,
                    "d_ff": 64, "num_layers": 2, "num_heads": 4}, "T5EncoderModel"),
    "whisper": ({"model_type": "whisper", "architectures": ["WhisperForConditionalGeneration"],
                 "vocab_size": 100, "d_model": 32, "encoder_layers": 1, "decoder_layers": 1,
                 "encoder_attention_heads": 2, "decoder_attention_heads": 2,
                 "encoder_ffn_dim": 64, "decoder_ffn_dim": 64, "num_mel_bins": 8,
                 "max_source_positions": 16, "max_target_positions": 16, "pad_token_id": 0},
                None),
}

# The subset ctest runs (about a minute): buffers and constants, training-mode batch norm,
# recurrent layers, transformers' SDPA attention (meta tensors gave it another graph), ViT
# (its init reads values) and an encoder-decoder speech model.
SUBSET_FIXTURES = ["states_and_constants", "batch_norm_train", "recurrent", "hf_llama_sdpa"]
SUBSET_HF = ["vit", "whisper"]


def _export(args: list[str]) -> tuple[int, dict | None, str]:
    """(exit code, the helper's JSON line, its stderr), run in this process."""
    from opscope_export.cli import main as helper_main

    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = helper_main(args)
    lines = stdout.getvalue().strip().splitlines()
    return code, json.loads(lines[-1]) if code == 0 and lines else None, stderr.getvalue()


def _export_real(args: list[str], output: str) -> tuple[int, dict | None, str]:
    """The same export, both modes, with real (random) weights. The command line refuses
    weights for hf: targets (a config has none to keep), so those go through the API."""
    if not args[0].startswith("hf:"):
        return _export([*args, "--mode", "graph", "--mode", "eager", "--with-weights",
                        "-o", output])
    from dataclasses import asdict

    from opscope_export.export import ExportRequest, export_archive

    hf_class = args[args.index("--hf-class") + 1] if "--hf-class" in args else None
    result = export_archive(ExportRequest(target=args[0], output=output, record_eager=True,
                                          weightless=False, hf_class=hf_class))
    return 0, asdict(result), ""


def _index(worker: str, archive: str, mode: str) -> dict:
    out = archive + f".{mode}.json"
    proc = subprocess.run([worker, archive, "--mode", mode, "-o", out], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, f"opscope-inspect {archive} --mode {mode}: {proc.stderr}"
    with open(out, encoding="utf-8") as handle:
        index = json.load(handle)
    index.pop("provenance")  # the archive's path and hash differ by construction
    return index


def _weight_bytes(archive: str) -> int:
    with zipfile.ZipFile(archive) as archive_zip:
        return sum(info.file_size for info in archive_zip.infolist()
                   if "/data/weights/weight_" in info.filename)


def _assert_same_indexes(worker, tmp_path, name: str, args: list[str]) -> None:
    real = str(tmp_path / f"{name}.real.pt2")
    light = str(tmp_path / f"{name}.weightless.pt2")
    both_modes = ["--mode", "graph", "--mode", "eager"]
    code, described, stderr = _export_real(args, real)
    assert code == 0 and described["weightless"] is False, stderr
    code, described, stderr = _export([*args, *both_modes, "--weightless", "-o", light])
    assert code == 0, stderr
    eager_without_data = described["weightless"]
    if eager_without_data:
        assert _weight_bytes(light) == 0
        assert _weight_bytes(real) > 0
    else:
        # The eager recording could not run without data: graph mode alone must still be
        # weightless (and the fallback named the op).
        assert "eager recording without weight data failed: op " in described["fallback"], described
        code, described, stderr = _export([*args, "--weightless", "-o", light])
        assert code == 0 and described["weightless"], (stderr, described)
        assert _weight_bytes(light) == 0
    for mode in ("graph", "eager") if eager_without_data else ("graph",):
        expected, actual = _index(worker, real, mode), _index(worker, light, mode)
        assert actual["ops"], f"{name}: no ops in {mode} mode"
        assert actual == expected, f"{name} ({mode} mode): weightless index differs"
    print(f"{name}: identical indexes ({'graph and eager' if eager_without_data else 'graph'} mode)")


def _fixture_args(name: str) -> list[str]:
    fixture = get_fixture(name)
    args = [fixture.target, "--seed", str(fixture.seed)]
    for spec in fixture.inputs:
        args += ["--input", spec]
    return args


def _write_config(tmp_path, name: str) -> str:
    folder = tmp_path / f"hf_{name}"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(HF_CONFIGS[name][0]), encoding="utf-8")
    return str(folder)


@pytest.mark.parametrize("name", FIXTURE_NAMES if ALL else SUBSET_FIXTURES)
def test_fixture_weightless_equals_real(name, inspect_worker, tmp_path):
    _assert_same_indexes(inspect_worker, tmp_path, name, _fixture_args(name))


@pytest.mark.parametrize("name", list(HF_CONFIGS) if ALL else SUBSET_HF)
def test_hf_config_weightless_equals_real(name, inspect_worker, tmp_path):
    args = [f"hf:{_write_config(tmp_path, name)}"]
    if HF_CONFIGS[name][1]:
        args += ["--hf-class", HF_CONFIGS[name][1]]
    _assert_same_indexes(inspect_worker, tmp_path, f"hf_{name}", args)


def test_hf_config_file_and_class(tmp_path):
    """hf:PATH/config.json builds the class the config names, with per-task inputs;
    --hf-class picks another."""
    config = os.path.join(_write_config(tmp_path, "whisper"), "config.json")
    code, described, stderr = _export([f"hf:{config}", "--weightless",
                                       "-o", str(tmp_path / "w.pt2")])
    assert code == 0, stderr
    assert described["model_type"].endswith("WhisperForConditionalGeneration")
    assert [i.get("keyword") for i in described["inputs"]] == [
        "input_features", "decoder_input_ids", "use_cache"]
    assert described["inputs"][0]["shape"] == [1, 8, 32]  # mel bins x 2 * source positions
    code, described, stderr = _export([f"hf:{config}", "--weightless", "--hf-class",
                                       "WhisperModel", "-o", str(tmp_path / "m.pt2")])
    assert code == 0, stderr
    assert described["model_type"].endswith("WhisperModel")


def _error_line(args: list[str]) -> str:
    code, _, stderr = _export(args)
    assert code == 1
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("opscope-export: error: ")
    return lines[0]


@pytest.mark.parametrize("config, expected", [
    ({"model_type": "no_such_arch", "hidden_size": 8}, 'model_type "no_such_arch" is unknown'),
    ({"hidden_size": 8}, 'no "model_type"'),
    ({"model_type": "llama", "hidden_size": 30, "num_attention_heads": 4},
     "llama config"),
    ([1, 2], "a model config is a JSON object"),
])
def test_bad_config_is_one_clear_line(tmp_path, config, expected):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    line = _error_line([f"hf:{path}", "--weightless", "-o", str(tmp_path / "x.pt2")])
    assert expected in line and str(path) in line, line
    assert not (tmp_path / "x.pt2").exists()


def test_missing_config_and_uncached_model_id(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf_home"))  # an empty cache
    line = _error_line([f"hf:{tmp_path}", "-o", str(tmp_path / "x.pt2")])
    assert "has no config.json" in line, line
    line = _error_line(["hf:someorg/somemodel", "-o", str(tmp_path / "x.pt2")])
    assert "not in the local Hugging Face cache" in line and "never downloads" in line, line


def test_fallback_to_real_weights_says_so_once(tmp_path):
    """A model that reads its weights' values while it is built cannot be built without data:
    the export uses real weights and says why, once, naming the module that read them."""
    source = tmp_path / "reads_values.py"
    source.write_text(
        "import torch\n"
        "class ReadsValues(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.linear = torch.nn.Linear(4, 4)\n"
        "        self.rate = self.linear.weight.abs().max().item()  # its weights' values\n"
        "    def forward(self, x):\n"
        "        return self.linear(x) * self.rate\n",
        encoding="utf-8")
    out = tmp_path / "r.pt2"
    code, described, stderr = _export([f"{source}:ReadsValues", "--input", "2x4",
                                       "--weightless", "-o", str(out)])
    assert code == 0, stderr
    assert described["weightless"] is False and "without weight data" in described["fallback"]
    warnings = [line for line in stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "exported with real weights instead" in warnings[0], stderr
    assert "(in ReadsValues.__init__)" in warnings[0], warnings[0]
    assert _weight_bytes(str(out)) > 0


def test_values_of_small_constants_read_while_building(tmp_path):
    """A drop-path schedule (timm, ConvNeXt, Swin: `x.item()` over a small linspace made while
    building) reads values the export can compute without any weight data: still weightless."""
    source = tmp_path / "drop_path.py"
    source.write_text(
        "import torch\n"
        "class DropPath(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        rates = [x.item() for x in torch.linspace(0, 0.1, 3)]\n"
        "        self.linear = torch.nn.Linear(4, 4)\n"
        "        self.rate = rates[-1]\n"
        "    def forward(self, x):\n"
        "        return self.linear(x) * self.rate\n",
        encoding="utf-8")
    out = tmp_path / "d.pt2"
    code, described, stderr = _export([f"{source}:DropPath", "--input", "2x4", "--weightless",
                                       "-o", str(out)])
    assert code == 0, stderr
    assert described["weightless"] is True and described["fallback"] is None, described
    assert "warning" not in stderr and _weight_bytes(str(out)) == 0
