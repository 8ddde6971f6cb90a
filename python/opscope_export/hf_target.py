"""`hf:CONFIG` targets: a Hugging Face architecture built from its config alone.

CONFIG is a `config.json`, a folder holding one, or a model id (`org/name`) whose config is
already in the local Hugging Face cache. Nothing is downloaded: the hub is set offline before
transformers loads, and a model id missing from the cache is an error saying how to get it.

The model is built with transformers' `AutoModel*.from_config` (no checkpoint), put in eval
mode as `from_pretrained` would, and given example inputs chosen from its main input
(token ids, pixel values, audio features) plus decoder token ids for encoder-decoders, with
`use_cache=False` where forward() takes it (a cache would add outputs, not ops to compress).
"""

from __future__ import annotations

import inspect
import json
import os

from opscope_export.errors import ExportError, describe

HF_PREFIX = "hf:"
HF_SYNTAX = ("hf:PATH/config.json, hf:FOLDER (holding config.json) or hf:ORG/NAME (a model "
             "whose config is in the local Hugging Face cache)")
_MAX_CONFIG_BYTES = 16 << 20  # a config is a few KB; anything larger is not one
_SEQUENCE_LENGTH = 8



def is_hf_target(target: str) -> bool:
    return target.startswith(HF_PREFIX)


def _offline() -> None:
    # Before transformers / huggingface_hub read their settings: never reach the network.
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"


def config_path(target: str) -> str:
    """The config.json an `hf:` target names (a file, a folder, or a cached model id)."""
    where = target[len(HF_PREFIX):]
    if not where:
        raise ExportError(f"{target}: nothing after 'hf:'; {HF_SYNTAX}")
    if os.path.isdir(where):
        candidate = os.path.join(where, "config.json")
        if not os.path.isfile(candidate):
            raise ExportError(f"{target}: folder {os.path.abspath(where)} has no config.json")
        return candidate
    if os.path.exists(where):
        return where
    looks_like_path = where.endswith(".json") or where.startswith((".", "/", "~"))
    if not looks_like_path and where.count("/") == 1:
        _offline()
        try:
            from huggingface_hub import try_to_load_from_cache
            cached = try_to_load_from_cache(where, "config.json")
        except Exception as exc:  # an invalid repo id, a damaged cache
            raise ExportError(f"{target}: cannot look up '{where}' in the local Hugging Face "
                              f"cache: {describe(exc)}") from exc
        if isinstance(cached, str) and os.path.isfile(cached):
            return cached
        raise ExportError(
            f"{target}: '{where}' is not in the local Hugging Face cache and opscope never "
            f"downloads; fetch its config first (`hf download {where} config.json`) or give "
            "the path of a config.json")
    raise ExportError(f"{target}: no such file or folder {os.path.abspath(where)}; {HF_SYNTAX}")


def _read_config_dict(target: str, path: str) -> dict:
    try:
        size = os.path.getsize(path)
        if size > _MAX_CONFIG_BYTES:
            raise ExportError(f"{path}: {size} bytes is too large for a model config "
                              f"(limit {_MAX_CONFIG_BYTES}); give the model's config.json")
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except json.JSONDecodeError as exc:
        raise ExportError(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg}); give "
                          "the model's config.json") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ExportError(f"{path}: cannot read it ({describe(exc)})") from exc
    if not isinstance(data, dict):
        raise ExportError(f"{path}: a model config is a JSON object, this is a "
                          f"{type(data).__name__}")
    return data


def load_config(target: str):
    """(transformers config, path) for an `hf:` target; one clear error for a bad config."""
    path = config_path(target)
    data = _read_config_dict(target, path)
    _offline()
    try:
        from transformers import AutoConfig
        from transformers.models.auto.configuration_auto import CONFIG_MAPPING
    except ImportError as exc:
        raise ExportError(f"{target}: hf: targets need the transformers package, which this "
                          f"Python cannot import ({describe(exc)}); install it or pass "
                          "--python PATH") from exc
    model_type = data.get("model_type")
    if not isinstance(model_type, str) or not model_type:
        raise ExportError(f"{path}: no \"model_type\" (e.g. \"llama\", \"bert\"); transformers "
                          "needs it to know the architecture")
    if model_type not in CONFIG_MAPPING:
        import transformers

        raise ExportError(f"{path}: model_type \"{model_type}\" is unknown to transformers "
                          f"{transformers.__version__}; check the spelling or upgrade "
                          "transformers (custom code from trust_remote_code is never run)")
    try:
        config = AutoConfig.for_model(**data)
    except Exception as exc:
        raise ExportError(f"{path}: transformers cannot read this {model_type} config: "
                          f"{describe(exc)}") from exc
    return config, path


def _model_class_name(config, hf_class: str | None) -> str:
    """--hf-class, else the config's first `architectures` entry (what from_pretrained
    builds), else AutoModel (the bare model, e.g. BertModel)."""
    import transformers

    if hf_class:
        if not hasattr(transformers, hf_class):
            raise ExportError(f"--hf-class {hf_class}: transformers {transformers.__version__} "
                              "has no such class; use an auto class such as "
                              "AutoModelForCausalLM or a model class such as LlamaForCausalLM")
        return hf_class
    for name in getattr(config, "architectures", None) or []:
        if isinstance(name, str) and hasattr(transformers, name):
            return name
    return "AutoModel"


def build_model(target: str, hf_class: str | None = None):
    """The nn.Module (eval mode) an `hf:` target describes. Call under the device wanted."""
    import transformers

    config, path = load_config(target)
    name = _model_class_name(config, hf_class)
    cls = getattr(transformers, name)
    try:
        model = cls.from_config(config) if name.startswith("Auto") else cls._from_config(config)
    except Exception as exc:
        raise ExportError(f"{path}: building {name} from this {config.model_type} config "
                          f"failed: {describe(exc)}; check the config's fields, or choose the "
                          "class with --hf-class") from exc
    if not hasattr(model, "eval"):
        raise ExportError(f"--hf-class {name}: not a model class (it built a "
                          f"{type(model).__name__})")
    return model.eval()


def _named(model, name: str) -> bool:
    try:
        return name in inspect.signature(model.forward).parameters
    except (TypeError, ValueError):
        return False


def _token_ids(config, length: int = _SEQUENCE_LENGTH):
    import torch

    vocab = getattr(config, "vocab_size", None)
    high = vocab if isinstance(vocab, int) and vocab > 1 else 2
    return torch.randint(0, high, (1, length), dtype=torch.int64)


def example_inputs(model) -> dict:
    """Keyword inputs for forward(), from the config's sizes (on the current device)."""
    import torch

    config = model.config
    main = getattr(model, "main_input_name", "input_ids")
    kwargs = {}
    if main == "pixel_values":
        vision = getattr(config, "vision_config", None) or config
        size = getattr(vision, "image_size", 224)
        size = size if isinstance(size, int) else int(size[0])
        channels = getattr(vision, "num_channels", 3)
        kwargs[main] = torch.randn(1, channels, size, size)
    elif main == "input_features":  # Whisper and other speech encoders: log-mel frames
        bins = getattr(config, "num_mel_bins", 80)
        frames = 2 * getattr(config, "max_source_positions", 1500)
        kwargs[main] = torch.randn(1, bins, frames)
    elif main == "input_values":  # raw audio (wav2vec2 and similar)
        kwargs[main] = torch.randn(1, 16000)
    else:
        kwargs[main] = _token_ids(config)
    if getattr(config, "is_encoder_decoder", False) and _named(model, "decoder_input_ids"):
        kwargs["decoder_input_ids"] = _token_ids(config, 4)
    if _named(model, "use_cache"):
        kwargs["use_cache"] = False
    return kwargs
