"""Export targets for test_propose_fidelity.py: the fixtures' models with a heavy-tailed,
trained-looking weight distribution (Student's t, test_weight_error_fidelity.heavy_tailed_state)
instead of their random init, so `opscope export` saves those weights."""

from __future__ import annotations


def _heavy(model):
    from test_weight_error_fidelity import heavy_tailed_state, load_state

    load_state(model, heavy_tailed_state(model))
    return model


def resnet18_heavy():
    from fixtures.resnet import resnet18

    return _heavy(resnet18())


def llama_heavy():
    from fixtures.hf import llama

    return _heavy(llama())


def gpt2_heavy():
    from fixtures.hf import gpt2

    return _heavy(gpt2())
