"""Any architecture transformers knows, from its config alone, without weight data (issue 25).

A fixed sample of model types across families (decoders, mixtures of experts, state-space,
encoders, encoder-decoders, speech, audio codecs, vision, dual encoders, vision-language
models, the towers of multimodal models, time series), each from transformers' default config with at most
two layers (and four experts), is exported weightless and read back by opscope-inspect. The
fraction is printed; each model type either exports (no weight data, ops in the index), is
written with its module names and state only because torch.export cannot trace it (one warning
line saying why, as this file expects), or fails with the one-line error this file expects,
naming what is missing: the class, the package, the input, or what torch cannot save. Also: an `hf:ORG/NAME` model id read from a private Hugging Face cache,
Llama 4's classes, and the bound on the fallback to real weights.

bench/hf_registry.py measures the same on default configs drawn at random (not a test).
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import subprocess
import sys
import time
import zipfile

from conftest import helper_command, helper_env

# Fails, and why (a substring of the one error line). A type missing here must export.
EXPECTED_FAILURES = {
    # A part of another model: no class is built from its config alone.
    "sam2_mask_decoder": "builds no model from a sam2_mask_decoder config alone",
    # A field the default config leaves unset and the model reads while it is built.
    "esm": 'the esm config leaves "vocab_size" unset (EsmEmbeddings.__init__ reads it',
}
# Classes that need a package this environment may lack: the error names it.
NEEDS_PACKAGE = {"dinat": "natten", "detr": "timm"}
# What torch 2.13 cannot do (a later one may): the error names the op and the module.
TORCH_LIMITS = {
    "unlimited_ocr": "cannot save the graph's `flat_apply`",
}
# Built, but torch.export cannot trace them: the archive holds their module names and state
# only (python/opscope_export/untraced.py), and the warning says why (a substring of it).
UNTRACED = {
    # An input no config sizes.
    "idefics2_perceiver": "needs `context`",
    # A default config whose sizes do not fit together (its rotary sections cover half the
    # head): the reason names the inputs it made, as --input takes them.
    "glm4v_text": "the inputs made from the config were input_ids=1x8:int64; pass one",
    # A loop over the experts its router picked: a branch on the weights' values.
    "switch_transformers": "data-dependent expression",
    # Python code iterating over a tensor (UDOP's `zip(*indices)` over its boxes' patches).
    "udop": "the model's Python code reads a tensor's elements",
    # Patches sampled with multinomial on its pixel mask's values.
    "vilt": "the size of an op's result that depends on values",
}

SAMPLE = [
    # decoders, mixtures of experts, state-space
    "llama", "gpt2", "qwen2", "mistral", "phi3", "gemma", "falcon", "bloom", "opt", "gpt_neox",
    "mixtral", "qwen3_moe", "mamba", "apertus1p5",
    # a default config that leaves its layer types unset (transformers' default: attention)
    "lfm2_moe",
    # encoders (X-MOD's language, BROS's and LayoutLM's boxes; Longformer branches on its
    # inputs' values: exported with real inputs)
    "bert", "roberta", "distilbert", "albert", "deberta-v2", "xmod", "bros", "layoutlm",
    "longformer",
    # AutoModel maps it to two classes, and its own choice fails without `architectures`
    "funnel",
    # encoder-decoders (LongT5 fails without the attention mask it defaults to None), speech
    "t5", "longt5", "bart", "whisper", "speech_to_text", "speech-encoder-decoder",
    # vision (ConvNeXt V2, FocalNet and Swin read a drop-path schedule while being built)
    "vit", "convnextv2", "focalnet", "swin", "resnet",
    # dual encoders, vision-language models (Blip-2's default config leaves its image token
    # unset), towers of multimodal models
    "clip", "siglip", "llava", "qwen2_vl", "colpali", "clip_vision_model", "siglip_text_model",
    "blip_2_vision_model", "blip-2",
    # a Q-Former: its query embeddings documented with two spaces before "of shape", the
    # vision features its cross-attention reads as wide as encoder_hidden_size
    "blip_2_qformer",
    # audio (wav2vec2-BERT's feature layout, X-Codec's and DAC's channels, OmniASR's channel
    # axis, Voxtral Realtime's mel bins first; MusicGen Melody's decoder from its sub-config,
    # its tokens per codebook), time series
    "wav2vec2", "wav2vec2-bert", "hubert", "xcodec", "dac", "omniasr_audio",
    "voxtral_realtime", "musicgen_melody", "patchtst",
    # Cohere ASR's conformer reads (frames, mel bins), not the layout it documents; a time
    # series whose default config leaves its horizon unset, with its time features
    "cohere_asr", "time_series_transformer",
    # an audio codec whose convolutions pad by non-persistent buffers (computed from the
    # config, real on the retry with real inputs)
    "mimi",
    # an encoder that fails on its unset input_features_mask: ones over its features' frames
    "audioflamingo3_encoder",
    # a text model that inherits main_input_name pixel_values; a vision tower that reads flat
    # patches and each patch's (x, y) position
    "sam3_lite_text_text_model", "gemma4_vision",
    # a retrieval wrapper of a vision-language model whose image token is in its sub-config
    # (vlm_config): its images (five dimensions) fail beside random text; on its text alone
    "colmodernvbert",
    # an audio encoder whose DAC convolutions read (batch, 1, samples), documented as
    # (batch_size, sequence_length)
    "pe_audio_encoder",
    # a vision tower whose position embeddings are interpolated from its grid (vision_utils'
    # indices and weights, precomputed from the real grid like its attention's boundaries)
    "qwen3_vl_vision",
    # vision towers that read their packed patches as one small image each: (patches,
    # channels, patch, patch) for a convolution, or with a batch axis before them
    "kimi_k25_vision", "paddleocr_vl_vision",
    # a draft model whose inputs are documented in brackets and in the config's terms
    # ([batch_size, config.block_size, dim], dim * len(config.target_layer_ids)), its attention
    # mask spanning its context and its block (the default mask does not)
    "muse_glimmer_assistant",
    # an audio decoder whose undocumented main input is hidden_states (latents, channels
    # first for its convolutions)
    "vibevoice_acoustic_tokenizer_decoder",
    # a vision tower that reads flat patches, their mask and the patch grid, though its
    # docstring documents images (its linear patch embedding's width says so)
    "siglip2_vision_model",
    # a vision tower that reads its patch grid (target_sizes, documented as optional) by
    # value: added when it fails without it, its values kept for the retry with real inputs
    "minicpm_ocr_vision",
    # a mixture of experts whose model defaults to transformers' eager experts (a loop over
    # the experts its router picked): exported with grouped_mm
    "openai_privacy_filter",
    # speech features documented (batch_size, sequence_length, feature_dim), as wide as its
    # input linear layer reads (mel bins expanded and stacked: four times num_mel_bins)
    "granite_speech5_ctc",
    # a video tracker whose forward() takes an inference session (hf_session.py): its
    # tracking step on a second frame, the session primed on a prompted first one
    "sam3_tracker_video",
    *EXPECTED_FAILURES, *NEEDS_PACKAGE, *TORCH_LIMITS, *UNTRACED,
]

_LAYERS = ("num_hidden_layers", "num_layers", "n_layer", "n_layers", "encoder_layers",
           "decoder_layers", "num_decoder_layers", "num_encoder_layers")
_EXPERTS = ("num_local_experts", "num_experts", "n_routed_experts")


def _small(config: dict) -> dict:
    """The config with at most two layers and four experts, in every sub-config; per-layer
    lists (layer_types, no_rope_layers) cut to the layers kept; staged models (Swin's
    `depths`, whose num_layers counts stages) one block a stage."""
    layers = {key: config[key] for key in _LAYERS if isinstance(config.get(key), int)
              and not ("depths" in config and key == "num_layers")}
    for key, value in list(config.items()):
        if key in layers and value > 2:
            config[key] = 2
        elif key in _EXPERTS and isinstance(value, int) and value > 4:
            config[key] = 4
        elif key == "num_experts_per_tok" and isinstance(value, int) and value > 2:
            config[key] = 2
        elif key == "depths" and isinstance(value, list):
            config[key] = [1] * len(value)
        elif isinstance(value, list) and len(value) > 2 and len(value) in layers.values():
            config[key] = value[:2]
        elif isinstance(value, dict) and "model_type" in value:
            _small(value)
    return config


def _write_config(folder, model_type: str, **fields) -> str:
    from transformers import AutoConfig

    folder.mkdir(parents=True)
    config = _small(AutoConfig.for_model(model_type, **fields).to_dict())
    path = folder / "config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    return str(path)


def _export(args: list[str]) -> tuple[int, dict | None, str]:
    """(exit code, the helper's JSON line, its stderr), run in this process."""
    from opscope_export.cli import main as helper_main

    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = helper_main(args)
    lines = stdout.getvalue().strip().splitlines()
    return code, json.loads(lines[-1]) if code == 0 and lines else None, stderr.getvalue()


def _weight_bytes(archive: str) -> int:
    with zipfile.ZipFile(archive) as archive_zip:
        return sum(info.file_size for info in archive_zip.infolist()
                   if "/data/weights/weight_" in info.filename)


def _read_back(worker: str, archive: str) -> dict:
    """The index opscope-inspect builds from the archive."""
    out = archive + ".index.json"
    proc = subprocess.run([worker, archive, "-o", out], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, f"opscope-inspect {archive}: {proc.stderr}"
    with open(out, encoding="utf-8") as handle:
        return json.load(handle)


def _ops(worker: str, archive: str) -> int:
    return len(_read_back(worker, archive)["ops"])


def _untraced_warning(stderr: str) -> str:
    """The one warning line of an export torch.export could not trace."""
    lines = [line for line in stderr.strip().splitlines() if "cannot trace it" in line]
    assert len(lines) == 1 and lines[0].startswith("opscope-export: warning: "), stderr
    assert "wrote its module names and parameters only" in lines[0], lines[0]
    return lines[0]


def _names_only(worker: str, archive: str) -> dict:
    """An untraced archive read back: no ops, and every module and parameter the model has."""
    index = _read_back(worker, archive)
    assert not index["ops"] and index["provenance"]["untraced"], index["provenance"]
    assert len(index["modules"]) > 1 and index["parameters"], archive
    return index


def _one_line_error(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("opscope-export: error: "), stderr
    return lines[0]


def _expected_failure(model_type: str) -> str | None:
    if model_type in TORCH_LIMITS:
        return TORCH_LIMITS[model_type]
    if model_type in NEEDS_PACKAGE:
        package = NEEDS_PACKAGE[model_type]
        return None if importlib.util.find_spec(package) else f"requires the {package} library"
    return EXPECTED_FAILURES.get(model_type)


def test_sample_of_model_types_exports_weightless(inspect_worker, tmp_path):
    wrong = []
    exported = names_only = 0
    for model_type in SAMPLE:
        config = _write_config(tmp_path / model_type, model_type)
        archive = str(tmp_path / f"{model_type}.pt2")
        started = time.perf_counter()
        code, described, stderr = _export([f"hf:{config}", "--weightless", "-o", archive])
        seconds = time.perf_counter() - started
        expected = _expected_failure(model_type)
        if code == 0 and described.get("untraced"):
            line = _untraced_warning(stderr)
            index = _names_only(inspect_worker, archive)
            print(f"{model_type:22s} names only: {len(index['modules'])} modules, "
                  f"{len(index['parameters'])} tensors: {line}")
            reason = UNTRACED.get(model_type)
            if not reason or reason not in line or reason not in described["untraced"]:
                wrong.append(f"{model_type}: {line} (expected: {reason or 'an export'})")
            names_only += 1
            os.remove(archive)
            continue
        if code == 0:
            ops = _ops(inspect_worker, archive)
            print(f"{model_type:22s} exported {described['model_type'].rsplit('.', 1)[-1]}, "
                  f"{ops} ops, {seconds:.1f} s")
            if not described["weightless"] or _weight_bytes(archive) or not ops:
                wrong.append(f"{model_type}: weightless={described['weightless']}, "
                             f"{_weight_bytes(archive)} weight bytes, {ops} ops")
            elif expected and model_type not in TORCH_LIMITS:
                wrong.append(f"{model_type}: exported, expected to fail with '{expected}'")
            exported += 1
            os.remove(archive)
            continue
        line = _one_line_error(stderr)
        print(f"{model_type:22s} failed: {line}")
        if not expected or expected not in line or (config not in line and archive not in line):
            wrong.append(f"{model_type}: {line} (expected: {expected or 'an export'})")
    print(f"exported weightless: {exported}/{len(SAMPLE)} "
          f"({100 * exported / len(SAMPLE):.0f} %) of a fixed sample of model types with a "
          f"graph, {names_only} more with their module names only "
          f"({100 * (exported + names_only) / len(SAMPLE):.0f} % in all)")
    assert not wrong, "\n".join(wrong)


def test_the_input_an_error_names_is_passed_as_it_says(inspect_worker, tmp_path):
    """A tower whose input no config sizes (Idefics2's perceiver reads the vision features)
    is written with its module names only, the warning naming `--input context=SHAPE`;
    passing that exports its graph, with the inputs the config does size (the attention mask)
    added as before."""
    config = _write_config(tmp_path / "perceiver", "idefics2_perceiver")
    code, described, stderr = _export([f"hf:{config}", "--weightless", "-o",
                                       str(tmp_path / "p.pt2")])
    assert code == 0 and described["untraced"], stderr
    assert "pass it with --input context=SHAPE[:DTYPE]" in _untraced_warning(stderr)
    with open(config, encoding="utf-8") as handle:
        width = json.load(handle)["hidden_size"]
    archive = str(tmp_path / "p.pt2")
    code, described, stderr = _export([f"hf:{config}", "--weightless", "--input",
                                       f"context=1x8x{width}", "-o", archive])
    assert code == 0, stderr
    assert described["inputs"][0] == {"shape": [1, 8, width], "dtype": "float32",
                                      "keyword": "context"}
    assert _ops(inspect_worker, archive) > 0


def test_a_video_tracker_taking_an_inference_session_exports_its_tracking_step(
        inspect_worker, tmp_path):
    """EdgeTAM's video model reads its prompts and memory from a session object: the export
    is forward() on a second frame of a session primed on a prompted first one, without
    weight data, its inputs the frame and the session's tensors by name, its modules named
    as the model names them (no wrapper's prefix), the memory attention among its ops."""
    config = _write_config(tmp_path / "edgetam", "edgetam_video")
    archive = str(tmp_path / "e.pt2")
    code, described, stderr = _export([f"hf:{config}", "--weightless", "-o", archive])
    assert code == 0 and not described["untraced"], stderr
    assert described["weightless"] and not _weight_bytes(archive)
    names = [entry["keyword"] for entry in described["inputs"]]
    assert names[0] == "frame" and \
        "output_dict_per_obj_0_cond_frame_outputs_0_maskmem_features" in names, names
    index = _read_back(inspect_worker, archive)
    modules = {module["name"]: module for module in index["modules"]}
    assert "memory_attention" in modules and not any(name.startswith("model.")
                                                     for name in modules), sorted(modules)[:5]
    called = {name.split(".")[0] for name, module in modules.items() if module["ops"]}
    assert {"vision_encoder", "memory_attention", "memory_encoder",
            "mask_decoder"} <= called, sorted(called)


def test_retry_with_real_values_stops_at_its_memory_bound(tmp_path, monkeypatch):
    """Longformer branches on its inputs' values: its export is retried running the model on
    real values, which stops once the process's memory passes the bound (SAM 3's image took
    13.8 GB): the archive keeps its module names only, one warning line saying what to make
    smaller; a bound of one byte trips it."""
    from opscope_export import export

    monkeypatch.setattr(export, "REAL_RETRY_RESIDENT", 1)
    config = _write_config(tmp_path / "longformer", "longformer")
    code, described, stderr = _export([f"hf:{config}", "--weightless", "-o",
                                       str(tmp_path / "l.pt2")])
    line = _untraced_warning(stderr)
    assert code == 0 and described["untraced"], stderr
    assert "running the model on real values to decide it passed the" in line, line
    assert "give a config with fewer or smaller layers" in line, line


def test_a_timm_backbone_error_names_the_field_that_builds_another(inspect_worker, tmp_path):
    """DETR's default config builds its backbone with timm; where timm is missing, the error
    says to set use_timm_backbone to false, and doing so exports the model."""
    if importlib.util.find_spec("timm"):
        import pytest

        pytest.skip("timm is installed: the default config builds")
    config = _write_config(tmp_path / "detr", "detr")
    code, _, stderr = _export([f"hf:{config}", "--weightless", "-o", str(tmp_path / "d.pt2")])
    line = _one_line_error(stderr)
    assert code == 1, line
    assert 'set "use_timm_backbone": false in config.json (without a timm backbone_config)' \
        in line, line
    with open(config, encoding="utf-8") as handle:
        fields = json.load(handle)
    fields["use_timm_backbone"] = False
    fields.pop("backbone_config", None)
    with open(config, "w", encoding="utf-8") as handle:
        json.dump(fields, handle)
    archive = str(tmp_path / "d.pt2")
    code, described, stderr = _export([f"hf:{config}", "--weightless", "-o", archive])
    assert code == 0, stderr
    assert described["weightless"] and _ops(inspect_worker, archive) > 0


def _run_helper(args: list[str], cwd, **env) -> tuple[int, str, str, float]:
    """(exit code, stdout, stderr, peak RSS in MB) of the helper in its own process: its own
    environment (HF_HOME is read once, when huggingface_hub loads) and its own memory."""
    out, err = cwd / "helper.out", cwd / "helper.err"
    with open(out, "w") as stdout, open(err, "w") as stderr:
        proc = subprocess.Popen(helper_command(*args), stdout=stdout, stderr=stderr,
                                env=helper_env(**env), cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    return (proc.returncode, out.read_text(encoding="utf-8"), err.read_text(encoding="utf-8"),
            usage.ru_maxrss / 1024)


def test_model_id_from_a_private_hugging_face_cache(inspect_worker, tmp_path):
    """hf:ORG/NAME reads the config.json of a model in the local cache, never the network."""
    home = tmp_path / "hf_home"
    repo = home / "hub" / "models--opscope-test--tiny-mistral"
    revision = "0" * 40
    _write_config(repo / "snapshots" / revision, "mistral", hidden_size=64,
                  intermediate_size=128, num_attention_heads=4, num_key_value_heads=2)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(revision, encoding="utf-8")
    archive = str(tmp_path / "cached.pt2")
    code, stdout, stderr, _ = _run_helper(
        ["hf:opscope-test/tiny-mistral", "--weightless", "-o", archive], tmp_path,
        HF_HOME=str(home))
    assert code == 0, stderr
    described = json.loads(stdout.strip().splitlines()[-1])
    assert described["weightless"] and described["model_type"].endswith("MistralModel")
    assert _ops(inspect_worker, archive) > 0


def test_llama4_exports_the_class_that_works_and_says_so(inspect_worker, tmp_path):
    """Llama 4's config names Llama4ForConditionalGeneration; where this transformers' own
    forward of that class fails, the default export builds the text model (from the
    config's text_config) instead and says so in one warning line naming --hf-class; the
    class asked for with --hf-class is built as asked."""
    config = _write_config(tmp_path / "llama4", "llama4")
    archive = str(tmp_path / "l4.pt2")
    code, described, stderr = _export([f"hf:{config}", "--weightless", "-o", archive])
    assert code == 0, stderr
    if not described["model_type"].endswith("Llama4ForConditionalGeneration"):
        assert described["model_type"].endswith("Llama4ForCausalLM"), described
        warnings = [line for line in stderr.splitlines() if "warning:" in line]
        assert len(warnings) == 1 and "exported Llama4ForCausalLM (--hf-class " \
            "Llama4ForCausalLM) instead of the default class" in warnings[0], stderr
    assert described["weightless"] and _ops(inspect_worker, archive) > 0
    archive = str(tmp_path / "l4_text.pt2")
    code, described, stderr = _export([f"hf:{config}", "--weightless", "--hf-class",
                                       "Llama4ForCausalLM", "-o", archive])
    assert code == 0, stderr
    assert described["weightless"] and described["model_type"].endswith("Llama4ForCausalLM")
    assert _ops(inspect_worker, archive) > 0


def test_fallback_to_real_weights_stops_at_the_bound_naming_the_module(tmp_path):
    """A model that reads its weights' values while it is built needs real weights; past 2 GB
    the export stops before allocating them, with one line naming the module being built,
    instead of running out of memory."""
    source = tmp_path / "reads_big.py"
    source.write_text(
        "import torch\n"
        "class ReadsBig(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.big = torch.nn.Linear(30000, 30000)  # 3.6 GB of float32\n"
        "        self.scale = self.big.weight.abs().max().item()\n"
        "    def forward(self, x):\n"
        "        return self.big(x) * self.scale\n",
        encoding="utf-8")
    code, _, stderr, peak_mb = _run_helper(
        [f"{source}:ReadsBig", "--input", "1x30000", "--weightless", "-o", "big.pt2"], tmp_path)
    assert code == 1 and not (tmp_path / "big.pt2").exists()
    line = _one_line_error(stderr)
    assert "(in ReadsBig.__init__)" in line and "passed while building Linear.__init__" in line
    assert "a weightless export may allocate" in line, line
    assert peak_mb < 1000, f"the refused export peaked at {peak_mb:.0f} MB"


if __name__ == "__main__":  # a quick look: python test_hf_architectures.py
    sys.exit(subprocess.call([sys.executable, "-m", "pytest", "-s", __file__]))
