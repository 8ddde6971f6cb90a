"""Example inputs for a transformers model built from its config (`hf:` targets).

The inputs forward() needs are its main input (`main_input_name`), the arguments it has no
default for, and the ones a task cannot run without although they default to None: the
decoder's tokens of an encoder-decoder, both towers' inputs of a dual encoder (CLIP,
SigLIP), a layout model's boxes, X-MOD's language. Each is made from the config's sizes
(vocabulary, channels, image size, frames, mel bins, feature size); the shape transformers
documents for the argument (`(batch_size, channels, sequence_length)`) chooses among
layouts where the config does not. An argument nothing here can make is named in the error, with the --input that
passes it. `use_cache=False` where forward() takes it (a cache adds outputs, not ops). When
torch.export fails for want of an argument that defaults to None, `inputs_wanted_by` adds it.
"""

from __future__ import annotations

import functools
import inspect
import re

from opscope_export.errors import ExportError

SEQUENCE_LENGTH = 8
DECODER_LENGTH = 4
AUDIO_SAMPLES = 16000  # one second at 16 kHz
FEATURE_FRAMES = 64  # speech feature frames, past the subsampling convolutions of encoders
# Arguments that default to None but that a model's task needs (it raises without them).
_NEEDED_WHEN_PRESENT = ("bbox", "lang_ids", "qformer_input_ids", "grid_thw")


def _sizes(config, every: bool = True) -> list:
    """The config and its sub-configs, the model's own first: where a size is looked up
    (`every`: then the other sub-configs too)."""
    found = [config]
    for key in ("vision_config", "text_config", "audio_config", "encoder_config",
                "qformer_config", "backbone_config"):
        sub = getattr(config, key, None)
        if sub is not None and not isinstance(sub, (dict, str)):
            found.append(sub)
    if not every:
        return found
    # Then any other sub-config (X-Codec 2's semantic_model_config sizes its features).
    found += [sub for sub in vars(config).values()
              if hasattr(sub, "model_type") and all(sub is not seen for seen in found)]
    return found


def _size(config, *names, default=None, sub: str | None = None):
    """The first integer field among `names`, in `sub`-config first, then the config's."""
    places = _sizes(config)
    if sub:
        first = getattr(config, sub, None)
        places = ([first] if first is not None else []) + places
    for place in places:
        for name in names:
            value = getattr(place, name, None)
            if isinstance(value, (list, tuple)) and value and isinstance(value[0], int):
                value = value[0]
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                return value
    return default


def _documented_shape(model, name: str) -> str | None:
    """The shape transformers documents for `name` in forward()'s docstring, if any."""
    doc = getattr(model.forward, "__doc__", None) or ""
    # `(batch_size, ...)`, or in brackets (`[batch_size, config.block_size, dim]`)
    match = re.search(rf"^\s*{re.escape(name)} \(`[^`]*`\s+of shape `[(\[]([^`]*)[)\]]`", doc,
                      re.M)
    return match.group(1) if match else None


def _parameters(model) -> dict:
    try:
        return dict(inspect.signature(model.forward).parameters)
    except (TypeError, ValueError):
        return {}


def _required(parameters: dict) -> list[str]:
    return [name for name, p in parameters.items()
            if p.default is inspect.Parameter.empty
            and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def _token_ids(config, length: int, sub: str | None = None):
    import torch

    high = _size(config, "vocab_size", default=2, sub=sub)
    return torch.randint(0, max(high, 2), (1, length), dtype=torch.int64)


def _image_side(config, axis: int) -> int:
    """The image's height (axis 0) or width (1): `image_size` is one side or (height, width)."""
    # Not every sub-config: DepthPro's image_model_config sizes its patches (384), not the
    # image its processor makes (1536).
    for place in [getattr(config, "vision_config", None), *_sizes(config, every=False)]:
        for name in ("image_size", "img_size", "input_size"):
            value = getattr(place, name, None) if place is not None else None
            if isinstance(value, (list, tuple)) and len(value) >= 2 and \
                    all(isinstance(v, int) for v in value[:2]):
                return value[axis]
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                return value
    processed = _processor_image_size(type(config))
    return processed[axis] if processed else 224


@functools.cache
def _processor_image_size(config_class) -> tuple[int, int] | None:
    """(height, width) the model's own image processor makes (its class's `crop_size`, else
    `size`, when given as height and width: DepthPro's 1536 x 1536), read from the source of
    the model's image_processing module without importing it (processors need PIL or
    torchvision). For configs that do not size their images."""
    import ast
    import importlib.util
    import os

    package = config_class.__module__.rpartition(".")[0]
    spec = importlib.util.find_spec(package)
    folder = os.path.dirname(spec.origin) if spec and spec.origin else None
    if not folder or not os.path.isdir(folder):
        return None
    for file in sorted(os.listdir(folder)):
        if not (file.startswith("image_processing_") and file.endswith(".py")):
            continue
        try:
            with open(os.path.join(folder, file), encoding="utf-8") as handle:
                tree = ast.parse(handle.read())
        except (OSError, SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            found = {}
            for item in node.body:
                if isinstance(item, ast.Assign) and len(item.targets) == 1 and \
                        isinstance(item.targets[0], ast.Name) and \
                        item.targets[0].id in ("size", "crop_size"):
                    try:
                        found[item.targets[0].id] = ast.literal_eval(item.value)
                    except ValueError:
                        continue
            for key in ("crop_size", "size"):
                value = found.get(key)
                if isinstance(value, dict) and isinstance(value.get("height"), int) and \
                        isinstance(value.get("width"), int):
                    return value["height"], value["width"]
    return None


def _image(config, frames: int | None = None):
    import torch

    height, width = _image_side(config, 0), _image_side(config, 1)
    channels = _size(config, "num_channels", "in_channels", "in_chans", default=3,
                     sub="vision_config")
    shape = (1, channels, height, width) if frames is None else \
        (1, frames, channels, height, width)
    return torch.randn(*shape)


def _frames(config) -> int | None:
    return _size(config, "num_frames", "frames_per_clip", sub="vision_config")


def _audio(model, config, name: str):
    import torch

    dims = [dim.strip() for dim in (_documented_shape(model, name) or "").split(",")]
    if len(dims) == 3 and (dims[1].isdigit() or "channels" in dims[1]):
        # codecs (EnCodec, Mimi, DAC): (batch, channels, samples)
        channels = int(dims[1]) if dims[1].isdigit() else \
            _size(config, "audio_channels", "channels", "num_channels", default=1)
        return torch.randn(1, channels, AUDIO_SAMPLES)
    if len(dims) == 3:  # spectrogram transformers (AST): (batch, max_length, num_mel_bins)
        documented = _as_documented(model, config, name)
        if documented is not None:
            return documented
    return torch.randn(1, AUDIO_SAMPLES)


def _features(model, config, name: str):
    """Speech features: (batch, frames, features) for the models whose config sizes their
    feature projection (wav2vec2-BERT, SeamlessM4T, Speech2Text, Granite Speech); Whisper's log-mel
    (batch, mel bins, frames) where the config bounds the frames (max_source_positions: the
    Whisper family, whose docstring gives the other layout); else the documented layout."""
    import torch

    features = _size(config, "feature_projection_input_dim", "input_feat_per_channel",
                     "input_dim", sub="audio_config")
    if features:
        channels = _size(config, "input_channels", default=1, sub="audio_config")
        return torch.randn(1, _frames_beside_waveform(model, config) or FEATURE_FRAMES,
                           features * channels)
    bins = _size(config, "num_mel_bins", "feature_size", "n_mels", default=80,
                 sub="audio_config")
    positions = _size(config, "max_source_positions", sub="audio_config")
    layout = [dim.strip() for dim in (_documented_shape(model, name) or "").split(",")]
    if not positions and len(layout) == 3 and "length" in layout[1]:
        return torch.randn(1, FEATURE_FRAMES, bins)
    return torch.randn(1, bins, 2 * (positions or 1500))


def _frames_beside_waveform(model, config) -> int | None:
    """Frames of speech features read beside the waveform (X-Codec 2 joins both): one per
    `hop_length` samples of the waveform, so the two line up; None otherwise."""
    hop = getattr(config, "hop_length", None)
    if "input_values" in _required(_parameters(model)) and isinstance(hop, int) and hop > 0:
        return max(AUDIO_SAMPLES // hop, 1)
    return None


def _vision_patches(config):
    """(hidden_states, grid_thw) for a Qwen-VL-style vision tower: flattened patches of one
    image of 2x2 merged patches, and its (t, h, w) grid."""
    import torch

    merge = _size(config, "spatial_merge_size", default=2, sub="vision_config")
    patch = _size(config, "patch_size", default=14, sub="vision_config")
    temporal = _size(config, "temporal_patch_size", default=1, sub="vision_config")
    channels = _size(config, "in_channels", "num_channels", "in_chans", default=3,
                     sub="vision_config")
    side = 2 * merge
    grid = torch.tensor([[1, side, side]], dtype=torch.int64)
    return torch.randn(side * side, channels * temporal * patch * patch), grid


def _past_length(config) -> int:
    """Steps of a time series' context: the config's context and its largest lag."""
    length = _size(config, "context_length", default=SEQUENCE_LENGTH)
    lags = getattr(config, "lags_sequence", None)
    if isinstance(lags, (list, tuple)) and lags and all(isinstance(v, int) for v in lags):
        length += max(lags)
    return length


def _positioned_patches(config):
    """(pixel_values, pixel_position_ids) for a vision tower that reads its image as flat
    patches and each patch's (x, y) (Gemma 4: (batch, patches, channels * patch * patch) and
    (batch, patches, 2), whatever its docstring says), the patch grid a multiple of the
    pooling kernel (which pools it k x k)."""
    import torch

    patch = _size(config, "patch_size", default=16)
    kernel = _size(config, "pooling_kernel_size", default=1)
    rows, columns = (max(_image_side(config, axis) // patch // kernel, 1) * kernel
                     for axis in (0, 1))
    ys, xs = torch.meshgrid(torch.arange(rows), torch.arange(columns), indexing="ij")
    positions = torch.stack([xs.flatten(), ys.flatten()], dim=-1)[None]
    channels = _size(config, "num_channels", default=3)
    return torch.rand(1, rows * columns, channels * patch * patch), positions


def _derive(name: str, model, config):
    import torch

    if name in ("input_ids", "labels"):
        documented = _documented_dims(model, config, name)
        if documented is not None and len(documented) == 2 and documented[0] > 1:
            # MusicGen's decoder: (batch_size * num_codebooks, sequence_length)
            high = max(_size(config, "vocab_size", default=2), 2)
            return torch.randint(0, high, tuple(documented), dtype=torch.int64)
        return _token_ids(config, SEQUENCE_LENGTH)
    if name == "decoder_input_ids":
        return _token_ids(config, DECODER_LENGTH)
    if name == "qformer_input_ids":
        return _token_ids(config, SEQUENCE_LENGTH, sub="qformer_config")
    if name in ("attention_mask", "qformer_attention_mask", "decoder_attention_mask"):
        length = DECODER_LENGTH if name.startswith("decoder") else SEQUENCE_LENGTH
        return torch.ones(1, length, dtype=torch.int64)
    if name == "token_type_ids":
        return torch.zeros(1, SEQUENCE_LENGTH, dtype=torch.int64)
    if name == "bbox":  # one box (x0, y0, x1, y1) per token
        return torch.zeros(1, SEQUENCE_LENGTH, 4, dtype=torch.int64)
    if name == "lang_ids":  # X-MOD: the language of each sequence, the config's first
        return torch.zeros(1, dtype=torch.int64)
    if name in ("pixel_values", "pixel_position_ids") and \
            "pixel_position_ids" in _parameters(model):
        patches, positions = _positioned_patches(config)
        return positions if name == "pixel_position_ids" else patches
    if name in ("hidden_states", "pixel_values", "grid_thw") and "grid_thw" in _parameters(model):
        # a Qwen-VL-style vision tower reads packed patches (Cosmos 3 Edge names them
        # pixel_values) and their grid
        patches, grid = _vision_patches(config)
        return grid if name == "grid_thw" else patches
    if name == "pixel_values":
        return _image(config, _frames(config))
    if name == "pixel_values_videos":
        return _image(config, _frames(config) or 2)
    if name == "pixel_mask":
        return torch.ones(1, _image_side(config, 0), _image_side(config, 1), dtype=torch.int64)
    if name == "input_values":
        return _audio(model, config, name)
    if name == "input_features":
        return _features(model, config, name)
    if name in ("past_values", "past_observed_mask"):  # time series: the context, per channel
        if name == "past_observed_mask":  # every value of the context observed
            return torch.ones_like(_derive("past_values", model, config))
        length = _past_length(config)
        if len((_documented_shape(model, name) or "").split(",")) == 3:
            channels = _size(config, "num_input_channels", "input_size", default=1)
            return torch.randn(1, length, channels)
        return torch.randn(1, length)
    if name in ("past_time_features", "future_time_features"):
        # (batch, steps, num_time_features): the config's count, none by default
        steps = _past_length(config) if name.startswith("past") else \
            _size(config, "prediction_length", default=SEQUENCE_LENGTH)
        return torch.randn(1, steps, getattr(config, "num_time_features", 0) or 0)
    if name == "encoder_hidden_states":
        # What a cross-attention layer attends to (Blip-2's Q-Former: the vision tower's
        # features), as wide as the config says the encoder is.
        width = _size(config, "encoder_hidden_size", "hidden_size", default=SEQUENCE_LENGTH)
        return torch.randn(1, SEQUENCE_LENGTH, width)
    if name == "inputs" and callable(getattr(model, "get_encoder", None)):
        # A composite encoder-decoder (speech-encoder-decoder): its encoder's input.
        encoder = model.get_encoder()
        main = getattr(encoder, "main_input_name", None)
        if main and main != "inputs":
            return _derive(main, encoder, getattr(encoder, "config", config))
    documented = _as_documented(model, config, name)
    if documented is None and name == "hidden_states" and not _documented_shape(model, name):
        # An undocumented main input named hidden_states (VibeVoice's acoustic decoder reads
        # latents): transformers' hidden states, (batch_size, sequence_length, hidden_size);
        # a convolution that wants them channels first gets them so on the retry.
        width = _size(config, "hidden_size")
        if width:
            return torch.randn(1, SEQUENCE_LENGTH, width)
    return documented


def _as_documented(model, config, name: str):
    """A tensor of the shape forward()'s docstring gives `name`, when every dimension is one
    the config sizes (SegGPT's prompt_pixel_values: (batch_size, num_channels, height,
    width)): integers for ids and masks, floats otherwise. None when a dimension is unknown."""
    import torch

    dims = _documented_dims(model, config, name)
    if dims is None:
        return None
    if name.endswith(("_ids", "_mask", "_masks", "labels")) and "pixel" not in name:
        return torch.ones(*dims, dtype=torch.int64)
    return torch.randn(*dims)


def _dimension(config, dim: str) -> int | None:
    """One dimension of a documented shape, sized from the config (a product such as
    `batch_size * num_codebooks` multiplies its factors); None when the config does not."""
    if "+" in dim:  # a sum (`number_of_previous_accepted_tokens + config.block_size`)
        sizes = [_dimension(config, term.strip()) for term in dim.split("+")]
        return None if None in sizes else sum(sizes)
    if "*" in dim:
        product = 1
        for factor in dim.split("*"):
            size = _dimension(config, factor.strip())
            if size is None:
                return None
            product *= size
        return product
    if dim in ("batch_size", "batch", "num_images", "num_images_or_videos"):
        return 1
    if dim in ("sequence_length", "seq_len", "target_sequence_length"):
        return SEQUENCE_LENGTH
    counted = re.fullmatch(r"len\(config\.(\w+)\)", dim)
    if counted:  # `len(config.target_layer_ids)`
        value = getattr(config, counted.group(1), None)
        return len(value) if isinstance(value, (list, tuple)) and value else None
    dim = dim.removeprefix("config.")
    if dim in ("dim", "hidden_dim"):  # the model's width
        return _size(config, dim, "hidden_size")
    if dim in ("num_channels", "channels"):
        return _size(config, "num_channels", default=3, sub="vision_config")
    if dim in ("height", "width", "image_size"):
        return _image_side(config, 1 if dim == "width" else 0)
    if dim == "num_frames":
        return _frames(config) or 2
    if dim.isdigit():
        return int(dim)
    size = _size(config, dim)
    if size is None and dim.endswith("_tokens"):
        return SEQUENCE_LENGTH  # a count of tokens no config sets (accepted tokens so far)
    return size


def _documented_dims(model, config, name: str) -> list[int] | None:
    """The shape forward()'s docstring gives `name`, sized from the config, or None."""
    shape = _documented_shape(model, name)
    if not shape:
        return None
    dims = [_dimension(config, dim.strip()) for dim in shape.split(",")]
    return None if any(dim is None for dim in dims) else dims


_PLACEHOLDER_TOKENS = ("image_token_id", "image_token_index")


def _unset_placeholder_tokens(model, config, names: list[str]) -> None:
    """A multimodal config whose image placeholder token is unset (transformers' default
    Blip-2 config; released checkpoints set one) while its images are inputs: the last id of
    the vocabulary stands for it, or the model cannot tell where the images go."""
    if "pixel_values" not in names:
        return
    for key in _PLACEHOLDER_TOKENS:
        if hasattr(config, key) and getattr(config, key) is None:
            vocabulary = _size(config, "vocab_size", default=2)
            setattr(config, key, vocabulary - 1)
            return


def _wanted(model, config, parameters: dict) -> list[str]:
    main = getattr(model, "main_input_name", None) or "input_ids"
    if parameters and main not in parameters:
        # An inherited main_input_name forward() does not take (SAM 3 Lite's text model says
        # pixel_values): transformers' first argument is the main input.
        main = next(iter(parameters))
    names = [main] if main in parameters or not parameters else []
    names += _required(parameters)
    if getattr(config, "is_encoder_decoder", False):
        names.append("decoder_input_ids")
    # A model reading text and images side by side (CLIP, SigLIP, ViLT) runs both; a
    # vision-language model takes its images through placeholder tokens in the text, and is
    # exported on its text alone.
    image_tokens = any(hasattr(config, key) for key in (
        "image_token_id", "image_token_index", "image_token"))
    if "pixel_values" in parameters and "input_ids" in parameters and not image_tokens:
        names += ["input_ids", "pixel_values"]
    names += [name for name in _NEEDED_WHEN_PRESENT if name in parameters]
    if "grid_thw" in parameters and "hidden_states" in parameters:
        names.append("hidden_states")
    return [name for i, name in enumerate(names)
            if name in parameters and name not in names[:i]]


def _takes_tensor(parameter) -> bool:
    """Whether the parameter's annotation admits a tensor (no annotation: assumed to)."""
    annotation = parameter.annotation
    if annotation is inspect.Parameter.empty:
        return True
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return "Tensor" in text or "Any" in text or getattr(annotation, "__name__", "") == "Tensor"


def _never_added(name: str) -> bool:
    """Arguments that replace an input rather than add one (embeddings, encoder outputs),
    or are no input at all (labels, caches); but a cross-attention layer's
    encoder_hidden_states adds one, when an error names it."""
    return name in ("self", "labels", "cache", "past_key_values", "return_dict") or \
        (name.endswith(("_embeds", "_outputs", "_states")) and name != "encoder_hidden_states")


_CHANNELS = re.compile(r"expected input\[[\d, ]+\] to have (\d+) channels, but got (\d+)")


def _other_layout(kwargs: dict, text: str) -> dict | None:
    """`kwargs` with a (batch, frames, features) input made (batch, features, frames) or the
    reverse, when a convolution rejected it for its channels (`expected input[1, 64, 130] to
    have 128 channels, but got 64`): the documented layout was not the one the model reads."""
    import torch

    match = _CHANNELS.search(text)
    if not match:
        return None
    wanted, got = int(match.group(1)), int(match.group(2))
    for name, value in kwargs.items():
        if isinstance(value, torch.Tensor) and value.dim() == 3 and value.is_floating_point() \
                and value.shape[1] == got and value.shape[2] == wanted:
            return {**kwargs, name: torch.randn(value.shape[0], wanted, got)}
    return None


_TOO_FEW_DIMENSIONS = re.compile(r"Dimension out of range \(expected to be in range of "
                                 r"\[-(\d+), \d+\], but got \d+\)")


def _with_channel_axis(model, kwargs: dict, text: str) -> dict | None:
    """`kwargs` with the main input, a (batch, samples) waveform, as (batch, 1, samples),
    when the model indexed a dimension it lacks (OmniASR's encoder reads one channel)."""
    import torch

    match = _TOO_FEW_DIMENSIONS.search(text)
    name = getattr(model, "main_input_name", None)
    value = kwargs.get(name)
    if match and isinstance(value, torch.Tensor) and value.dim() == int(match.group(1)) == 2 \
            and value.is_floating_point():
        return {**kwargs, name: torch.randn(value.shape[0], 1, value.shape[1])}
    return None


_REDUCTION = re.compile(r"must have same reduction dim, but got \[\d+, \d+\] X \[\d+, \d+\]")


def _features_last(kwargs: dict, text: str) -> dict | None:
    """`kwargs` with its one (batch, a, b) float input made (batch, b, a), when a linear layer
    rejected what the input became (`a and b must have same reduction dim, but got [16, 96000]
    X [4096, 1280]`): Cohere ASR's and Canary's conformer reads (batch, frames, mel bins)
    although their docstrings document (batch_size, audio_length)."""
    import torch

    if not _REDUCTION.search(text):
        return None
    floats = [name for name, value in kwargs.items() if isinstance(value, torch.Tensor)
              and value.dim() == 3 and value.is_floating_point()]
    if len(floats) != 1:
        return None
    value = kwargs[floats[0]]
    return {**kwargs, floats[0]: torch.randn(value.shape[0], value.shape[2], value.shape[1])}


def _mask_of_input(model, kwargs: dict, name: str):
    """Ones for `name`, the mask of another input (`input_features_mask` of
    `input_features`), each dimension as long as that input's dimension its docstring names
    alike (AudioFlamingo 3: (batch_size, sequence_length) of (batch_size, feature_size,
    sequence_length)); None otherwise."""
    import torch

    value = kwargs.get(name.removesuffix("_mask"))
    if not name.endswith("_mask") or not isinstance(value, torch.Tensor):
        return None
    mask_dims = [d.strip() for d in (_documented_shape(model, name) or "").split(",")]
    input_dims = [d.strip() for d in
                  (_documented_shape(model, name.removesuffix("_mask")) or "").split(",")]
    if len(input_dims) != value.dim() or not all(d in input_dims for d in mask_dims):
        return None
    return torch.ones(*[value.shape[input_dims.index(d)] for d in mask_dims],
                      dtype=torch.int64)


_SHAPE_IN_ERROR = re.compile(r"must be a (\d)D tensor of shape \(([^)]*)\)")


def _as_the_error_says(model, kwargs: dict, text: str) -> dict | None:
    """`kwargs` with its main input in the shape the model's own error gives, when the config
    sizes every dimension (LightGlue: `Input must be a 5D tensor of shape (batch_size, 2,
    num_channels, height, width)`, an image pair)."""
    import torch

    match = _SHAPE_IN_ERROR.search(text)
    name = getattr(model, "main_input_name", None)
    value = kwargs.get(name)
    if not match or not isinstance(value, torch.Tensor) or not value.is_floating_point():
        return None
    dims = [_dimension(model.config, dim.strip()) for dim in match.group(2).split(",")]
    if len(dims) != int(match.group(1)) or any(d is None for d in dims) or \
            list(value.shape) == dims:
        return None
    return {**kwargs, name: torch.randn(*dims)}


_LINEAR_WIDTH = re.compile(r"must have same reduction dim, but got \[\d+, \d+\] X \[(\d+), \d+\]")


_REDUCTION_SIZES = re.compile(r"must have same reduction dim, but got \[\d+, (\d+)\] X \[(\d+), \d+\]")


def _features_as_wide_as_read(model, kwargs: dict, text: str) -> dict | None:
    """`kwargs` with its one (batch, frames, features) float input as wide as the linear layer
    that rejected it reads (`a and b must have same reduction dim, but got [64, 80] X [320,
    1024]`), when forward()'s docstring gives its last dimension a name the config does not
    size (Granite Speech 5's `feature_dim`: mel bins expanded and stacked, four times
    num_mel_bins, which its feature extractor makes)."""
    import torch

    match = _REDUCTION_SIZES.search(text)
    floats = [name for name, value in kwargs.items() if isinstance(value, torch.Tensor)
              and value.dim() == 3 and value.is_floating_point()]
    if not match or len(floats) != 1:
        return None
    name, value = floats[0], kwargs[floats[0]]
    dims = [d.strip() for d in (_documented_shape(model, name) or "").split(",")]
    got, wanted = int(match.group(1)), int(match.group(2))
    if len(dims) != 3 or value.shape[2] != got or wanted == got or \
            _dimension(model.config, dims[2]) is not None:
        return None
    return {**kwargs, name: torch.randn(value.shape[0], value.shape[1], wanted)}


def _documented_description(model, name: str) -> str:
    """The first line of what forward()'s docstring says of `name` (below its type), or ''."""
    doc = getattr(model.forward, "__doc__", None) or ""
    match = re.search(rf"^\s*{re.escape(name)} \(.*\):\s*\n\s*(.*)$", doc, re.M)
    return match.group(1) if match else ""


def _image_as_flat_patches(model, kwargs: dict, text: str) -> dict | None:
    """`kwargs` with its one image, (batch, channels, height, width), as the flat patches a
    linear layer as wide as channels * patch * patch embeds (`a and b must have same
    reduction dim, but got [672, 224] X [768, 768]`): (batch, patches, channels * patch *
    patch), the patches row by row; an input over the image's pixels, (batch, height,
    width), as ones over its patches; a (batch_size, 2) input documented as the images'
    (height, width) as the patch grid. Siglip 2's vision tower reads its inputs so (its
    processor makes them) although its docstring documents images."""
    import torch

    match = _LINEAR_WIDTH.search(text)
    images = [name for name, value in kwargs.items() if isinstance(value, torch.Tensor)
              and value.dim() == 4 and value.is_floating_point()]
    if not match or len(images) != 1:
        return None
    image = kwargs[images[0]]
    batch, channels, height, width = image.shape
    patch = _size(model.config, "patch_size", sub="vision_config")
    if not patch or channels * patch * patch != int(match.group(1)) or \
            height < patch or width < patch:
        return None
    rows, columns = height // patch, width // patch
    patches = rows * columns
    made = {**kwargs, images[0]: torch.randn(batch, patches, channels * patch * patch)}
    for name, value in kwargs.items():
        if name == images[0] or not isinstance(value, torch.Tensor):
            continue
        if tuple(value.shape) == (batch, height, width):
            made[name] = torch.ones(batch, patches, dtype=torch.int64)
        elif tuple(value.shape) == (batch, 2) and \
                re.search(r"height, width|\(h, w\)", _documented_description(model, name)):
            made[name] = torch.tensor([[rows, columns]] * batch, dtype=torch.int64)
    return made


_FLAT_PATCHES = re.compile(
    r"Expected 3D \(unbatched\) or (4)D \(batched\) input to conv2d, but got input of size: "
    r"\[\d+, \d+\]|not enough values to unpack \(expected ([45]), got 2\)")


def _patches_as_images(model, kwargs: dict, text: str) -> dict | None:
    """`kwargs` with its one (patches, channels * patch * patch) float input, a vision tower's
    packed patches, as one small image per patch, when the model wanted them so: (patches,
    channels, patch, patch) for a convolution (Kimi-K2.5's vision tower), or (1, patches,
    channels, patch, patch) where it unpacks five dimensions (PaddleOCR-VL's)."""
    import torch

    match = _FLAT_PATCHES.search(text)
    flat = [name for name, value in kwargs.items() if isinstance(value, torch.Tensor)
            and value.dim() == 2 and value.is_floating_point()]
    if not match or len(flat) != 1:
        return None
    config = model.config
    channels = _size(config, "num_channels", "in_channels", "in_chans", default=3,
                     sub="vision_config")
    patch = _size(config, "patch_size", default=14, sub="vision_config")
    patches, features = kwargs[flat[0]].shape
    if features != channels * patch * patch:
        return None
    shape = (patches, channels, patch, patch)
    return {**kwargs, flat[0]: torch.randn(*((1, *shape) if match.group(2) == "5" else shape))}


def inputs_wanted_by(model, kwargs: dict, exc: BaseException) -> dict | None:
    """`kwargs` with one input in the other layout (`_other_layout`, `_features_last`), or
    with a channel axis (`_with_channel_axis`), or one more argument
    for forward(), from the failure `exc`: the first argument it names that `kwargs` lacks and the config can make (`You must specify exactly
    one of input_features or encoder_inputs_embeds`), else the attention mask of a model that
    failed on a None (LongT5, Switch Transformers index it unconditionally); None when there
    is nothing to add."""
    import torch

    text, seen = "", exc
    for _ in range(5):
        if seen is None:
            break
        text += f" {seen}"
        seen = seen.__cause__ or seen.__context__
    for reshaped in (_other_layout(kwargs, text), _with_channel_axis(model, kwargs, text),
                     _image_as_flat_patches(model, kwargs, text),
                     _features_as_wide_as_read(model, kwargs, text), _features_last(kwargs, text), _as_the_error_says(model, kwargs, text),
                     _patches_as_images(model, kwargs, text)):
        if reshaped is not None:
            return reshaped
    parameters = _parameters(model)
    missing = [name for name in parameters if name not in kwargs and not _never_added(name)
               and parameters[name].kind not in (inspect.Parameter.VAR_POSITIONAL,
                                                 inspect.Parameter.VAR_KEYWORD)]
    named = sorted((match.start(), name) for name in missing
                   for match in [re.search(rf"\b{re.escape(name)}\b", text)] if match)
    for _, name in named:
        value = _derive(name, model, model.config)
        if value is not None:
            return {**kwargs, name: value}
    if "NoneType" in text:
        for name in missing:
            mask = _mask_of_input(model, kwargs, name)
            if mask is not None:
                return {**kwargs, name: mask}
    if "NoneType" in text:
        for name in missing:
            grid = _patch_grid(model, kwargs, name)
            if grid is not None:
                return {**kwargs, name: grid}
    if "NoneType" in text and "attention_mask" in missing:
        ids = kwargs.get("input_ids")
        length = ids.shape[-1] if isinstance(ids, torch.Tensor) else SEQUENCE_LENGTH
        return {**kwargs, "attention_mask": torch.ones(1, length, dtype=torch.int64)}
    return _one_channel_waveform(model, kwargs) or _documented_mask(model, kwargs, missing) \
        or _text_alone(model.config, kwargs)


def _patch_grid(model, kwargs: dict, name: str):
    """The patch grid of the image input, `[[h, w]]` or `[[1, h, w]]` (its sides over the
    config's patch size), for an argument forward() documents as a `(batch_size, 2)` or
    `(batch_size, 3)` grid of patches (MiniCPM-OCR's vision tower: "target_sizes ... Patch grid
    sizes `(h, w)`", which it reads unconditionally though it defaults to None); else None."""
    import torch

    dims = [d.strip() for d in (_documented_shape(model, name) or "").split(",")]
    if len(dims) != 2 or dims[0] != "batch_size" or dims[1] not in ("2", "3") or \
            "grid" not in _documented_description(model, name).lower():
        return None
    images = [value for value in kwargs.values() if isinstance(value, torch.Tensor)
              and value.dim() == 4 and value.is_floating_point()]
    patch = _size(model.config, "patch_size", sub="vision_config")
    if len(images) != 1 or not patch:
        return None
    rows, columns = images[0].shape[-2] // patch, images[0].shape[-1] // patch
    if rows < 1 or columns < 1:
        return None
    grid = [rows, columns] if dims[1] == "2" else [1, rows, columns]
    return torch.tensor([grid] * images[0].shape[0], dtype=torch.int64)


def _documented_mask(model, kwargs: dict, missing: list[str]) -> dict | None:
    """`kwargs` with the attention mask forward() documents, when the model failed without
    it and the config sizes it: a mask the model's default does not make (MuseGlimmer's
    assistant attends to its context and its block: `[batch_size,
    number_of_previous_accepted_tokens + config.block_size]`)."""
    if "attention_mask" not in missing:
        return None
    dims = _documented_dims(model, model.config, "attention_mask")
    if dims is None or len(dims) != 2:
        return None
    import torch

    return {**kwargs, "attention_mask": torch.ones(*dims, dtype=torch.int64)}


def _one_channel_waveform(model, kwargs: dict) -> dict | None:
    """`kwargs` with its one (batch, samples) float input, a waveform, as (batch, 1, samples),
    when the model failed on it and convolves one channel (PE Audio's DAC encoder: its
    docstring says (batch_size, sequence_length), and Conv1d took that as one unbatched
    channel)."""
    import torch

    waveforms = [name for name, value in kwargs.items() if isinstance(value, torch.Tensor)
                 and value.dim() == 2 and value.is_floating_point()]
    if len(waveforms) != 1:
        return None
    value = kwargs[waveforms[0]]
    if any(isinstance(module, torch.nn.Conv1d) and module.in_channels == 1
           for module in model.modules()):
        return {**kwargs, waveforms[0]: torch.randn(value.shape[0], 1, value.shape[1])}
    return None


def _text_alone(config, kwargs: dict) -> dict | None:
    """`kwargs` without the images, for a model that failed on them beside its text while a
    sub-config of it names an image placeholder token (ColModernVBert's vlm_config): a
    vision-language model inside a wrapper, exported on its text alone as the model itself
    is (its images go where placeholder tokens are, which random text has none of)."""
    if "pixel_values" not in kwargs or "input_ids" not in kwargs:
        return None
    if any(hasattr(place, key) for place in _sizes(config)[1:]
           for key in ("image_token_id", "image_token_index", "image_token")):
        return {name: value for name, value in kwargs.items() if name != "pixel_values"}
    return None


def precomputed_vision_inputs(model, kwargs: dict) -> dict:
    """`kwargs` and, for a vision tower that reads a real `grid_thw` and computes its packed
    attention's boundaries and rotary positions with transformers' vision_utils (which pop
    them from forward's **kwargs when given: "precomputed before torch.export tracing"), those
    tensors computed from the grid (GLM-OCR's vision tower), and its position embeddings'
    interpolation indices and weights (Qwen3-VL's, Qwen4-Exp's: torch's real-tensor
    propagation fails on their computation, at prims.signbit). Only with real inputs: the
    computation reads the grid's values."""
    import inspect as _inspect
    import sys

    import torch

    grid = kwargs.get("grid_thw")
    parameters = _parameters(model)
    takes_kwargs = any(p.kind is _inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    module = sys.modules.get(type(model).__module__)
    if not (isinstance(grid, torch.Tensor) and takes_kwargs and module is not None):
        return kwargs
    try:
        from transformers import vision_utils
    except ImportError:
        return kwargs
    added = dict(kwargs)
    uses = vars(module)
    if "cu_seqlens" not in added and (uses.get("get_vision_attention_seqlens") is
                                       vision_utils.get_vision_attention_seqlens or
                                       uses.get("get_vision_cu_seqlens") is
                                       vision_utils.get_vision_cu_seqlens):
        added["cu_seqlens"] = vision_utils.get_vision_cu_seqlens(grid)
    if "position_ids" not in added and \
            uses.get("get_vision_position_ids") is vision_utils.get_vision_position_ids:
        merge = _size(model.config, "spatial_merge_size", default=2, sub="vision_config")
        added["position_ids"] = vision_utils.get_vision_position_ids(grid, merge)
    interpolate = vision_utils.get_vision_interpolation_indices_and_weights
    if "interp_indices" not in added and uses.get(interpolate.__name__) is interpolate:
        # Its arguments besides the grid are the model's own (Qwen3-VL's num_grid_per_side,
        # interpolation mode): learned from forward's call, stopped there.
        call = _first_call(model, module, interpolate, added)
        if call is not None:
            args, call_kwargs = call
            call_kwargs.pop("kwargs", None)
            added["interp_indices"], added["interp_weights"] = interpolate(
                grid, *args[1:], **call_kwargs)
    return added


class _Called(Exception):
    def __init__(self, args, kwargs):
        super().__init__("called")
        self.call = (args, kwargs)


def _first_call(model, module, function, kwargs: dict):
    """(args, kwargs) of forward's first call of `function` (a name in `module`, which the
    call is stopped at, before any weight is read), or None when forward fails before it."""
    name = function.__name__

    def stop(*args, **call_kwargs):
        raise _Called(args, call_kwargs)

    setattr(module, name, stop)
    try:
        model(**dict(kwargs))
    except _Called as called:
        return called.call
    except Exception:
        return None
    finally:
        setattr(module, name, function)
    return None


def example_inputs(model, given: dict | None = None, target: str = "hf:") -> dict:
    """Keyword inputs for forward(), from the config's sizes (on the current device); `given`
    (from --input NAME=SPEC) replaces or adds to them. A forward() taking an inference
    session gets the inputs of a tracking step instead (hf_session.py)."""
    given = dict(given or {})
    from opscope_export.hf_session import session_inputs, session_parameter

    if session_parameter(model) is not None:  # a video model's inference session
        return session_inputs(model, given, target)
    config = model.config
    parameters = _parameters(model)
    kwargs = {}
    wanted = _wanted(model, config, parameters)
    _unset_placeholder_tokens(model, config, wanted)
    for name in wanted:
        if name in given:
            kwargs[name] = given.pop(name)
            continue
        value = _derive(name, model, config)
        if value is None and not _takes_tensor(parameters[name]):
            kind = getattr(parameters[name].annotation, "__name__", None) or \
                str(parameters[name].annotation)
            raise ExportError(
                f"{target}: {type(model).__name__}.forward() needs `{name}`, a {kind} (not a "
                "tensor), which neither the config nor --input can make; choose another "
                "class of the model with --hf-class")
        if value is None:
            shape = _documented_shape(model, name)
            documented = f" (documented shape: {shape})" if shape else ""
            raise ExportError(
                f"{target}: {type(model).__name__}.forward() needs `{name}`{documented}, which cannot "
                f"be made from the config; pass it with --input {name}=SHAPE[:DTYPE], e.g. "
                f"--input {name}=1x8:int64")
        kwargs[name] = value
    kwargs.update(given)
    if "use_cache" in parameters:
        kwargs["use_cache"] = False
    return kwargs
