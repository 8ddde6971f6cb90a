from llmcompressor import oneshot
from llmcompressor.modifiers.quantization import GPTQModifier, QuantizationModifier
recipe = [
    QuantizationModifier(scheme={"W8A8": ["re:.*mlp.*"], "FP8": "LlamaAttention"}, ignore=IGNORED),
    GPTQModifier(targets="Linear", scheme="w4a16", ignore=["lm_head"], **extra),
]
oneshot(model=model, recipe=recipe)
