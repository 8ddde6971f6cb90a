# A training script for the example ResNet-18, with its coreai-opt config written in Python:
# the VS Code test types a new module name into module_name_configs and hovers the patterns.
import torch.nn as nn
from coreai_opt.quantization.config import ModuleQuantizerConfig, QuantizerConfig

from model import build

model = build()
config = QuantizerConfig(
    module_name_configs={
        r"layer1\..*": ModuleQuantizerConfig(op_type_config={"conv2d": None}),
        "layer5.*": None,
    },
)
config.set_module_type(nn.Linear, None)
