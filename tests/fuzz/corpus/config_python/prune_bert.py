"""Gradual magnitude pruning of a BERT encoder with a notebook-style script."""
import torch
from torch import nn
from transformers import BertForSequenceClassification

from coreai_opt.pruning import MagnitudePrunerConfig, ModuleMagnitudePrunerConfig, PruningSpec

SPARSITY = 0.75
NUM_LAYERS = 12

spec = PruningSpec(target_sparsity=SPARSITY, block_size=4)
layer_config = ModuleMagnitudePrunerConfig(op_state_spec={"weight": spec})

config = MagnitudePrunerConfig(
    global_config=layer_config,
    module_name_configs={
        "bert.embeddings.word_embeddings": None,
        'classifier': None,
        "bert.pooler.dense": ModuleMagnitudePrunerConfig(op_type_config={"linear": None}),
    },
)
config.only_for(
    "bert.encoder.layer.0.attention.self.query",
    nn.Linear,
)
for name in ("query", "key", "value"):
    config.set_module_name("bert.encoder.layer.11.attention.self." + name, None)

other = MagnitudePrunerConfig.from_dict({"magnitude_pruning_config": {
    "module_type_configs": {"torch.nn.modules.linear.Linear": {"op_name_config": {"linear_1": None}}},
}})


def sparsity_of(model: nn.Module) -> float:
    zeros = total = 0
    for module in model.modules():
        if isinstance(module, nn.Linear):
            zeros += (module.weight == 0).sum().item()
            total += module.weight.numel()
    return zeros / total


def main() -> None:
    from coreai_opt.pruning import MagnitudePruner

    model = BertForSequenceClassification.from_pretrained("bert-base-uncased", num_labels=2)
    pruner = MagnitudePruner(model, config)
    model = pruner.prepare()
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
    for step in range(200):
        inputs = torch.randint(0, 30000, (4, 64))
        loss = model(input_ids=inputs, labels=torch.zeros(4, dtype=torch.long)).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        pruner.step()
        if step % 50 == 0:
            print(step, loss.item(), sparsity_of(model))
    pruner.finalize()


if __name__ == "__main__":
    main()
