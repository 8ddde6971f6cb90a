"""`hf:CONFIG` targets: a Hugging Face architecture built from its config alone.

CONFIG is a `config.json`, a folder holding one, or a model id (`org/name`) whose config is
already in the local Hugging Face cache. Nothing is downloaded: the hub is set offline before
transformers loads, and a model id missing from the cache is an error saying how to get it.

The model is built with transformers' `AutoModel*.from_config` (no checkpoint) and put in
eval mode as `from_pretrained` would; its example inputs come from hf_inputs.py.
"""

from __future__ import annotations

import json
import os

from opscope_export.errors import ExportError, describe
from opscope_export.hf_config_gaps import describe_gap, fill_default, unset_field

HF_PREFIX = "hf:"
HF_SYNTAX = ("hf:PATH/config.json, hf:FOLDER (holding config.json) or hf:ORG/NAME (a model "
             "whose config is in the local Hugging Face cache)")
_MAX_CONFIG_BYTES = 16 << 20  # a config is a few KB; anything larger is not one


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


def _model_class(config, hf_class: str | None):
    """The class name to build: --hf-class, else the config's first `architectures` entry
    (what from_pretrained builds), else AutoModel's (the bare model, e.g. BertModel), else the
    auto class of another task that takes this model type; else the class itself that
    transformers declares for exactly this config class (the vision or text tower of a
    multimodal model, which transformers does not always export by name)."""
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
    from transformers.models.auto import modeling_auto

    bare = modeling_auto.MODEL_MAPPING_NAMES.get(config.model_type)
    if isinstance(bare, (list, tuple)):
        # Several bare models (Funnel's full and base models): AutoModel's default is the
        # first, and its own choice fails on a config without `architectures`.
        bare = next((name for name in bare if hasattr(transformers, name)), bare)
    if isinstance(bare, str) and hasattr(transformers, bare):
        return bare  # what AutoModel builds; by name, so a sub-config it takes is used
    if bare:
        return "AutoModel"
    for mapping in dir(modeling_auto):
        names = getattr(modeling_auto, mapping)
        if mapping.startswith("MODEL_FOR_") and mapping.endswith("_MAPPING_NAMES") \
                and isinstance(names, dict) and isinstance(names.get(config.model_type), str) \
                and hasattr(transformers, names[config.model_type]):
            return names[config.model_type]
    declared = _classes_declared_for(type(config))
    if declared:
        return declared[0]  # a class object: some towers are not exported by transformers
    raise ExportError(
        f"transformers {transformers.__version__} builds no model from a {config.model_type} "
        f"config alone ({type(config).__name__} configures a part of another model); give the "
        "whole model's config.json, or choose the class with --hf-class")


def _classes_declared_for(config_class) -> list:
    """Model classes of the config's own package whose `config_class` is exactly
    `config_class`, in the order their modules define them."""
    import importlib
    import pkgutil

    from transformers import PreTrainedModel

    package_name = config_class.__module__.rpartition(".")[0]
    try:
        package = importlib.import_module(package_name)
    except ImportError:
        return []
    found = []
    for info in pkgutil.iter_modules(getattr(package, "__path__", [])):
        if not info.name.startswith("modeling_"):
            continue
        try:
            module = importlib.import_module(f"{package_name}.{info.name}")
        except Exception:  # a module needing a package this Python lacks
            continue
        for name, cls in vars(module).items():
            if (isinstance(cls, type) and issubclass(cls, PreTrainedModel)
                    and cls.__module__ == module.__name__
                    and getattr(cls, "config_class", None) is config_class
                    and not name.endswith("PreTrainedModel")):
                found.append(cls)
    return found


def other_classes(model, limit: int = 3) -> list[str]:
    """Other public classes of the model's own module built from its config or one of its
    sub-configs (Llama4ForConditionalGeneration: Llama4ForCausalLM, Llama4TextModel, ...)."""
    config = getattr(model, "config", None)
    if config is None:
        return []
    return _classes_beside(type(model), config, limit)


def _classes_beside(cls, config, limit: int) -> list[str]:
    import sys

    import transformers

    module = sys.modules.get(cls.__module__)
    if module is None:
        return []
    accepted = {type(config)} | {type(value) for value in vars(config).values()
                                 if hasattr(value, "model_type")}
    found = []
    for name in getattr(module, "__all__", []):
        other = getattr(module, name, None)
        if (isinstance(other, type) and other is not cls and hasattr(transformers, name)
                and not name.endswith("PreTrainedModel")
                and getattr(other, "config_class", None) in accepted):
            found.append(name)
    # Task heads before bare models, as from_pretrained would pick them.
    return sorted(found, key=lambda name: "For" not in name)[:limit]


def alternative_classes(target: str, limit: int = 3) -> list[str]:
    """The classes `--hf-class` could pick for `target` when the default one fails: those
    beside the default class built from the config or one of its sub-configs ([] when the
    config cannot be read or no class is chosen)."""
    import transformers

    try:
        config, _ = load_config(target)
        cls = _model_class(config, None)
        cls = getattr(transformers, cls) if isinstance(cls, str) else cls
    except Exception:  # reported by the first attempt already
        return []
    return _classes_beside(cls, config, limit)


def _config_for(cls, config):
    """The config `cls` is built from: `config`, or the sub-config of the type `cls` takes
    (--hf-class Llama4ForCausalLM on a Llama 4 config builds from its text_config)."""
    wanted = getattr(cls, "config_class", None)
    if not isinstance(wanted, type) or isinstance(config, wanted):
        return config
    for value in vars(config).values():
        if isinstance(value, wanted):
            return value
    return config


def _missing_package(exc: BaseException) -> str | None:
    """transformers' own sentence for a class whose package this Python lacks ("X requires
    the natten library but it was not found in your environment.")."""
    seen = exc
    for _ in range(5):
        if seen is None:
            return None
        if isinstance(seen, ImportError):
            text = " ".join(str(seen).split())
            return text.split(". ")[0].rstrip(".") if text else None
        seen = seen.__cause__ or seen.__context__
    return None


def _own_backbone_hint(config, missing: str) -> str:
    """For a config that builds its backbone with timm when this Python lacks it (the DETR
    family's default timm_backbone): the field that builds transformers' own instead."""
    backbone = getattr(config, "backbone_config", None)
    if "timm" in missing and (getattr(config, "use_timm_backbone", False) is True or
                              getattr(backbone, "model_type", None) == "timm_backbone"):
        return (", or set \"use_timm_backbone\": false in config.json (without a timm "
                "backbone_config) to build transformers' own backbone instead")
    return ""


def build_model(target: str, hf_class: str | None = None):
    """The nn.Module (eval mode) an `hf:` target describes. Call under the device wanted."""
    from opscope_export.data_free import reading_module

    config, path = load_config(target)
    _unset_horizon(config)
    try:
        cls = _model_class(config, hf_class)
    except ExportError as exc:
        raise ExportError(f"{path}: {exc}") from exc
    name = cls if isinstance(cls, str) else cls.__name__
    for attempt in range(_GAPS_FILLED + 1):
        try:
            model = _build(cls, config)
            break
        except Exception as exc:
            missing = _missing_package(exc)
            if missing:
                raise ExportError(f"{path}: {name} cannot be built here: {missing}; install "
                                  f"it{_own_backbone_hint(config, missing)}, or choose "
                                  "another class with --hf-class") from exc
            gap = unset_field(exc)
            if gap and attempt < _GAPS_FILLED and _fill_gap(config, *gap[:3]):
                continue
            if gap:
                field = _field_path(config, gap[0]) + gap[1]
                raise ExportError(f"{path}: cannot build {name}: "
                                  f"{describe_gap(config.model_type, field, *gap[2:])}") from exc
            module = reading_module(exc)
            where = f" (in {module})" if module else ""
            raise ExportError(f"{path}: building {name} from this {config.model_type} config "
                              f"failed: {describe(exc)}{where}; check the config's fields, or "
                              "choose the class with --hf-class") from exc
    if not hasattr(model, "eval"):
        raise ExportError(f"--hf-class {name}: not a model class (it built a "
                          f"{type(model).__name__})")
    _without_cache(model)
    _experts_without_loop(model)
    return model.eval()


def _experts_without_loop(model) -> None:
    """A mixture of experts built with transformers' eager experts (a Python loop over the
    experts its router picked: a branch on the weights' values, which a weightless export
    does not have) uses grouped_mm instead, where the class can set its experts'
    implementation: the same experts' parameters, computed without the loop, as transformers
    does by default for most (Mixtral). OpenAI Privacy Filter defaults to eager for its
    numbers' accumulation order, which no export reads. Kept when grouped_mm cannot run."""
    config = getattr(model, "config", None)
    if getattr(config, "_experts_implementation", None) != "eager":
        return
    try:
        if model._can_set_experts_implementation():
            model.set_experts_implementation("grouped_mm")
    except Exception:  # transformers' own refusal (a kernel it cannot dispatch here)
        pass


# Unset fields of a config filled with transformers' own default before giving up.
_GAPS_FILLED = 3


def _build(cls, config):
    import transformers

    cls = getattr(transformers, cls) if isinstance(cls, str) else cls
    auto = cls.__module__.startswith("transformers.models.auto.")  # not AutoformerModel
    if not auto:
        config = _config_for(cls, config)
    return cls.from_config(config) if auto else cls._from_config(config)


def _fill_gap(config, found, field: str, key) -> bool:
    """Fills `field` where the model read it unset: in `found` (the config object the
    model's code read) and in the configs of the same class under `config` (from_config
    builds from a copy)."""
    return any([fill_default(place, field, key) for place in _config_tree(config)
                if type(place) is type(found) and getattr(place, field, 0) is None]
               + [fill_default(found, field, key)])


def _field_path(config, found, depth: int = 3) -> str:
    """`text_config.`: where in `config` the config object of `found`'s class is ('' for
    the config itself or when not found)."""
    if type(found) is type(config) or depth == 0:
        return ""
    for key, value in vars(config).items():
        if hasattr(value, "model_type") and value is not config:
            if type(value) is type(found):
                return f"{key}."
            inner = _field_path(value, found, depth - 1)
            if inner:
                return f"{key}.{inner}"
    return ""


def _config_tree(config, depth: int = 3) -> list:
    """`config` and its sub-configs, to `depth` levels."""
    found = [config]
    if depth > 0:
        for value in vars(config).values():
            if hasattr(value, "model_type") and value is not config:
                found += _config_tree(value, depth - 1)
    return found


# The horizon a default time-series config leaves unset (Autoformer, Informer, Time Series
# Transformer; a released checkpoint sets it): a few steps.
_DEFAULT_HORIZON = 8


def _unset_horizon(config) -> None:
    """A default horizon, and a context as long, where the config leaves them unset."""
    if getattr(config, "prediction_length", 0) is None:
        config.prediction_length = _DEFAULT_HORIZON
        if getattr(config, "context_length", 0) is None:
            config.context_length = _DEFAULT_HORIZON


def _without_cache(model) -> None:
    """use_cache=False in the model's config and sub-configs: a cache adds outputs (some of a
    type torch.export cannot return), not ops to compress; a wrapper such as ColPali does
    not take use_cache as an argument to pass it along."""
    configs = [getattr(module, "config", None) for module in model.modules()]
    for config in {id(c): c for c in configs if hasattr(c, "use_cache")}.values():
        config.use_cache = False
