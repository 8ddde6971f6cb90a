# Palettize a torchvision ResNet-18: 4-bit everywhere, 8-bit for the classifier and the
# first convolution, nothing for the downsample shortcuts.
import torch
from torch import nn
from torchvision.models import resnet18

from coreai_opt.palettization import (
    KMeansPalettizerConfig,
    ModuleKMeansPalettizerConfig,
    PalettizationSpec,
)

EIGHT_BIT = ModuleKMeansPalettizerConfig(op_state_spec={"weight": PalettizationSpec(n_bits=8)})

config = (
    KMeansPalettizerConfig.presets.w4()
    .set_module_name("fc", EIGHT_BIT)
    .set_module_name('conv1', EIGHT_BIT)
    .without([r"layer\d\.0\.downsample\.0", nn.BatchNorm2d])
)

scoped = KMeansPalettizerConfig(
    module_type_configs={
        torch.nn.Conv2d: ModuleKMeansPalettizerConfig(
            op_state_spec={"weight": PalettizationSpec(n_bits=4)},
            op_type_config={"conv2d": None},
        ),
        "torch.nn.modules.linear.Linear": ModuleKMeansPalettizerConfig(
            op_name_config={'linear': None},
        ),
    },
    module_name_configs={"layer4.1.conv2": None},
)

from_yaml_dict = KMeansPalettizerConfig.from_dict(
    {
        "kmeans_palettization_config": {
            "global_config": {"op_state_spec": {"weight": {"n_bits": 6}}},
            "module_name_configs": {"layer1.*": None, 'layer2\\.0\\..*': None},
        }
    }
)


def evaluate(model, batches):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for images, labels in batches:
            correct += (model(images).argmax(-1) == labels).sum().item()
            total += labels.numel()
    return correct / max(total, 1)


if __name__ == "__main__":
    from coreai_opt.palettization import KMeansPalettizer

    model = resnet18(weights=None)
    batches = [(torch.randn(8, 3, 224, 224), torch.randint(0, 1000, (8,))) for _ in range(4)]
    palettizer = KMeansPalettizer(model, config)
    palettized = palettizer.compress()
    print("accuracy after palettization:", evaluate(palettized, batches))
