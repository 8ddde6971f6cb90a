"""The benchmark models, by name, with their factory in models.py and their example
inputs in `opscope export --input` syntax. Torch-free, so the harness stays small."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BenchModel:
    name: str      # row label in the results
    factory: str   # function in models.py
    inputs: tuple  # `opscope export --input` specs
    small: bool    # part of --quick


MODELS = (
    BenchModel("MyModel", "my_model", ("1x10",), True),
    BenchModel("ResNet-50-shaped", "resnet50_shaped", ("1x3x32x32",), True),
    BenchModel("ViT (transformers)", "vit_small", ("1x3x32x32",), False),
    BenchModel("BERT (transformers)", "bert_small", ("1x16:int64:0..99",), False),
    BenchModel("GPT-12", "gpt_12", ("1x16:int64:0..63",), True),
    BenchModel("GPT-96", "gpt_96", ("1x16:int64:0..63",), False),
    BenchModel("GPT-384", "gpt_384", ("1x16:int64:0..63",), False),
)
