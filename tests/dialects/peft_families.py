"""Tiny Hugging Face architectures the PEFT judge builds from config (no weights, no download):
one per family issue 26 names, and ViLT, which torch.export cannot trace (its archive holds its
module names only). Small enough to export in a second or two each, with enough layers (4) for
layer selections to mean something."""

TEXT = {
    "hidden_size": 32,
    "intermediate_size": 64,
    "num_hidden_layers": 4,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "vocab_size": 128,
    "max_position_embeddings": 64,
    "bos_token_id": 0,
    "eos_token_id": 1,
    "pad_token_id": 2,
}

FAMILIES = {
    "llama": {"model_type": "llama", "architectures": ["LlamaForCausalLM"], **TEXT},
    "qwen2": {"model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"], **TEXT},
    "mistral": {"model_type": "mistral", "architectures": ["MistralForCausalLM"], **TEXT},
    "mixtral": {
        "model_type": "mixtral",
        "architectures": ["MixtralForCausalLM"],
        **TEXT,
        "num_local_experts": 4,
        "num_experts_per_tok": 2,
    },
    "gemma3": {
        "model_type": "gemma3",
        "architectures": ["Gemma3ForConditionalGeneration"],
        "text_config": {
            "model_type": "gemma3_text",
            **TEXT,
            "head_dim": 8,
            "sliding_window": 16,
        },
        "vision_config": {
            "model_type": "siglip_vision_model",
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 2,
            "num_attention_heads": 2,
            "image_size": 32,
            "patch_size": 8,
        },
        "mm_tokens_per_image": 4,
        "image_token_index": 5,
        "boi_token_index": 6,
        "eoi_token_index": 7,
    },
    "phi3": {"model_type": "phi3", "architectures": ["Phi3ForCausalLM"], **TEXT},
    "gpt2": {
        "model_type": "gpt2",
        "architectures": ["GPT2LMHeadModel"],
        "n_layer": 4,
        "n_embd": 32,
        "n_head": 4,
        "vocab_size": 128,
        "n_positions": 64,
        "bos_token_id": 0,
        "eos_token_id": 1,
    },
    "bert": {
        "model_type": "bert",
        "architectures": ["BertForSequenceClassification"],
        "hidden_size": 32,
        "intermediate_size": 64,
        "num_hidden_layers": 4,
        "num_attention_heads": 4,
        "vocab_size": 128,
        "max_position_embeddings": 64,
        "pad_token_id": 0,
    },
    "t5": {
        "model_type": "t5",
        "architectures": ["T5ForConditionalGeneration"],
        "d_model": 32,
        "d_kv": 8,
        "d_ff": 64,
        "num_layers": 4,
        "num_decoder_layers": 4,
        "num_heads": 4,
        "vocab_size": 128,
        "decoder_start_token_id": 0,
        "pad_token_id": 0,
        "eos_token_id": 1,
    },
    "vit": {
        "model_type": "vit",
        "architectures": ["ViTForImageClassification"],
        "hidden_size": 32,
        "intermediate_size": 64,
        "num_hidden_layers": 4,
        "num_attention_heads": 4,
        "image_size": 32,
        "patch_size": 8,
    },
    # torch.export cannot trace ViLT (patches sampled with multinomial on its mask): its
    # archive holds the module names and state only (python/opscope_export/untraced.py).
    "vilt": {
        "model_type": "vilt",
        "architectures": ["ViltForQuestionAnswering"],
        "hidden_size": 32,
        "intermediate_size": 64,
        "num_hidden_layers": 4,
        "num_attention_heads": 4,
        "vocab_size": 128,
        "max_position_embeddings": 40,
        "image_size": 32,
        "patch_size": 8,
        "num_labels": 3,
        "pad_token_id": 0,
    },
    "whisper": {
        "model_type": "whisper",
        "architectures": ["WhisperForConditionalGeneration"],
        "d_model": 32,
        "encoder_layers": 4,
        "decoder_layers": 4,
        "encoder_attention_heads": 4,
        "decoder_attention_heads": 4,
        "encoder_ffn_dim": 64,
        "decoder_ffn_dim": 64,
        "vocab_size": 128,
        "num_mel_bins": 16,
        "max_source_positions": 32,
        "max_target_positions": 32,
        "decoder_start_token_id": 0,
        "pad_token_id": 0,
        "bos_token_id": 0,
        "eos_token_id": 1,
    },
}


def export_families(root, names=None, opscope=None):
    """Each family (all, or `names`) exported weightless through opscope_export and indexed by
    `opscope index` under `root` (a pathlib.Path): {name: (index path, meta-device builder)}.
    Shared by the dialect judges (test_peft_judge.py, test_llmcompressor_judge.py)."""
    import importlib
    import json
    import os
    import subprocess
    import warnings

    import torch
    from opscope_export.export import ExportRequest, export_archive
    from transformers import AutoConfig

    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    opscope = opscope or os.environ.get("OPSCOPE_BIN", os.path.join(repo, "build", "opscope"))
    built = {}
    for name in names or list(FAMILIES):
        config = FAMILIES[name]
        folder = root / name
        folder.mkdir()
        (folder / "config.json").write_text(json.dumps(config))
        archive = str(root / f"{name}.pt2")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = export_archive(
                ExportRequest(target=f"hf:{folder / 'config.json'}", output=archive)
            )
        index = str(root / f"{name}.idx")
        subprocess.run([opscope, "index", archive, "-o", index, "-q", "--no-cache"], check=True)
        hf_config = AutoConfig.from_pretrained(str(folder))
        module, _, cls_name = result.model_type.rpartition(".")
        cls = getattr(importlib.import_module(module), cls_name)

        def build(cls=cls, hf_config=hf_config):
            with torch.device("meta"):
                return cls(hf_config)

        built[name] = (index, build)
    return built
