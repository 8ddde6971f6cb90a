"""Models where eager mode and the exported graph see different ops; each class is one case
coreai-opt's eager inspector handles by running the model (see docs/EAGER_MODE.md)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

GLOBAL_OFFSET = torch.linspace(0.0, 1.0, 8)


class TensorMethods(nn.Module):
    """size()/contiguous() leave no node in the exported graph; eager mode counts them."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        n = x.size(0)
        shape = x.shape
        y = self.fc(x).view(n, 2, 4).transpose(1, 2).contiguous()
        y = y.flatten(1)[0]
        y = self.drop(y.unsqueeze(0).expand(shape[0], -1))
        return y.contiguous() * 2


class Scale(nn.Module):
    def forward(self, x, s):
        return x * s


class Untracked(nn.Module):
    """A plain tensor attribute, a global tensor and a factory tensor: no intercepted
    producer, so they appear as untracked_N, also at a module boundary."""

    def __init__(self):
        super().__init__()
        self.plain = torch.full((8,), 0.5)  # not a buffer: invisible to state_dict
        self.scale = Scale()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        y = self.fc(x) + self.plain
        y = y + GLOBAL_OFFSET
        y = self.scale(y, torch.ones(8))
        return y - torch.arange(8, dtype=y.dtype)


class Shared(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)

    def forward(self, x):
        return torch.relu(self.fc(x))


class CalledTwiceDownstream(nn.Module):
    """The second call of a module records no ops; its output stands for the first call's."""

    def __init__(self):
        super().__init__()
        self.shared = Shared()
        self.head = nn.Linear(6, 2)

    def forward(self, x):
        a = self.shared(x)
        b = self.shared(a)
        return self.head(b), a


class ViewThenInPlace(nn.Module):
    """An in-place op through a view bumps the base's version too: eager mode then loses
    the base's producer (coreai-opt tracks tensors by id and version)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.out = nn.Linear(8, 8)

    def forward(self, x):
        h = self.fc(x)
        v = h.view(-1)
        v.mul_(0.5)
        return self.out(h)


class Pair(nn.Module):
    def __init__(self):
        super().__init__()
        self.left = nn.Linear(3, 3)
        self.right = nn.Linear(3, 3)

    def forward(self, a, b):
        return {"sum": self.left(a) + self.right(b), "diff": a - b}


class ChunkIntoModule(nn.Module):
    """Two output slots of one op entering a module as two arguments; a dict return."""

    def __init__(self):
        super().__init__()
        self.pair = Pair()

    def forward(self, x):
        a, b = x.chunk(2, dim=-1)
        out = self.pair(a, b)
        return torch.cat([out["sum"], out["diff"]], dim=-1)


class FunctionalMix(nn.Module):
    """Functional calls in forward, outside any submodule, several of one kind."""

    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(8, 8))
        self.register_buffer("bias", torch.zeros(8))

    def forward(self, x):
        y = F.linear(x, self.weight, self.bias)
        y = F.layer_norm(y, (8,))
        y = F.gelu(y) + F.silu(y)
        y = torch.matmul(y, self.weight.t())
        return torch.softmax(y, dim=-1) @ self.weight


# name -> (factory, example input shapes)
CASES = {
    "tensor_methods": (TensorMethods, [(2, 8)]),
    "untracked": (Untracked, [(2, 8)]),
    "called_twice_downstream": (CalledTwiceDownstream, [(2, 6)]),
    "view_then_in_place": (ViewThenInPlace, [(2, 8)]),
    "chunk_into_module": (ChunkIntoModule, [(2, 6)]),
    "functional_mix": (FunctionalMix, [(2, 8)]),
}


def build(name: str):
    """(model in eval mode, example args), deterministic."""
    factory, shapes = CASES[name]
    torch.manual_seed(0)
    model = factory().eval()
    torch.manual_seed(1)
    return model, tuple(torch.randn(*shape) for shape in shapes)
