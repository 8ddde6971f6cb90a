"""Fine-tune a small Llama with 4-bit weight quantization (QAT), keeping the head in float."""
import argparse
import math

import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, AutoTokenizer

from coreai_opt.quantization import QuantizationSpec
from coreai_opt.quantization.config import (
    ModuleQuantizerConfig,
    OpQuantizerConfig,
    QuantizerConfig,
)
from coreai_opt.quantization.spec import PerBlockGranularity


def build_config(skip_layers: int) -> QuantizerConfig:
    int4 = QuantizationSpec(dtype=torch.int4, granularity=PerBlockGranularity(block_size=32))
    attention = ModuleQuantizerConfig(
        op_input_spec=None,
        op_output_spec=None,
        op_state_spec={"weight": int4},
        op_type_config={"softmax": None, 'matmul': OpQuantizerConfig(op_state_spec=None)},
    )
    config = QuantizerConfig(
        global_config=ModuleQuantizerConfig(
            op_type_config={"linear": OpQuantizerConfig(op_state_spec={"weight": int4})},
            op_name_config={r"linear_\d+": None},
        ),
        module_name_configs={
            r"model\.layers\.\d+\.self_attn": attention,
            "lm_head": None,
            """model.embed_tokens""": None,
        },
        module_type_configs={nn.LayerNorm: None, "torch.nn.modules.sparse.Embedding": None},
        execution_mode="graph",
    )
    for i in range(skip_layers):
        config.set_module_name(f"model.layers.{i}", None)  # not checked: an f-string
    config.set_module_type(nn.SiLU, None).set_module_name(
        "model.norm", ModuleQuantizerConfig(op_type_config={"mul": None})
    )
    return config


def train(model, loader, steps, lr):
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    model.train()
    for step, batch in zip(range(steps), loader):
        out = model(**batch, labels=batch["input_ids"])
        out.loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if step % 10 == 0:
            print(f"step {step}: loss {out.loss.item():.3f} ppl {math.exp(out.loss.item()):.1f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="TinyLlama/TinyLlama-1.1B-Chat-v1.0")
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--skip-layers", type=int, default=2)
    args = parser.parse_args()
    tokenizer = AutoTokenizer.from_pretrained(args.model)
    model = AutoModelForCausalLM.from_pretrained(args.model, torch_dtype=torch.float32)
    config = build_config(args.skip_layers)
    texts = ["The quick brown fox jumps over the lazy dog."] * 64
    data = [tokenizer(t, return_tensors="pt") for t in texts]
    loader = DataLoader(data, batch_size=None)
    from coreai_opt.quantization import Quantizer

    quantizer = Quantizer(model, config)
    model = quantizer.prepare(example_inputs=(data[0]["input_ids"],))
    train(model, loader, args.steps, lr=1e-5)
    model = quantizer.finalize()
    torch.save(model.state_dict(), "llama_w4.pt")


if __name__ == "__main__":
    main()
