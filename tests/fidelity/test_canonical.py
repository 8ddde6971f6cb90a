"""The comparison harness itself: an index written by hand to hold exactly the documented
MyModel graph (model-inspection.md) must canonicalise to what coreai-opt reports, with and
without the Quantizer filter; and a wrong index must produce a readable diff."""

import copy
import os

from conftest import PYTHON_DIR
from oracle import canonical

ROOT = ["", "fixtures.reference.MyModel"]
LINEAR = "torch.nn.modules.linear.Linear"
RELU = "torch.nn.modules.activation.ReLU"
LINEAR_PY = "/venv/lib/python3.11/site-packages/torch/nn/modules/linear.py"
REFERENCE_PY = os.path.join(PYTHON_DIR, "fixtures", "reference.py")


def source_line(code: str) -> int:
    with open(REFERENCE_PY, encoding="utf-8") as f:
        return next(n for n, line in enumerate(f, 1) if line.strip() == code)


def call(name, type_, module, code, inputs, consumers, compressors):
    frames = [[REFERENCE_PY, source_line(code), "forward", code],
              [LINEAR_PY, 134, "forward", "return F.linear(input, self.weight, self.bias)"]]
    return {"name": name, "type": type_, "kind": "call", "stack": [ROOT, module],
            "source": frames, "inputs": inputs, "outputs": [[0, consumers]],
            "compressors": compressors}


def state(name):
    return {"name": name, "type": "", "kind": "state", "stack": [], "source": [],
            "inputs": [], "outputs": [[0, []]], "compressors": 0}


def my_model_index():
    ops = [
        state("linear1.weight"), state("linear1.bias"), state("linear2.weight"),
        state("linear2.bias"),
        {"name": "x", "type": "", "kind": "input", "stack": [], "source": [], "inputs": [],
         "outputs": [[0, ["linear"]]], "compressors": 0},
        call("linear", "linear", ["linear1", LINEAR], "x = self.linear1(x)",
             [{"producer": "x", "slot": 0}, {"producer": "linear1.weight", "state": True},
              {"producer": "linear1.bias", "state": True}], ["relu"], 1),
        call("relu", "relu", ["relu", RELU], "x = self.relu(x)",
             [{"producer": "linear", "slot": 0}], ["linear_1"], 0),
        call("linear_1", "linear", ["linear2", LINEAR], "x = self.linear2(x)",
             [{"producer": "relu", "slot": 0}, {"producer": "linear2.weight", "state": True},
              {"producer": "linear2.bias", "state": True}], ["output"], 1),
        {"name": "output", "type": "", "kind": "output", "stack": [], "source": [],
         "inputs": [{"producer": "linear_1", "slot": 0}], "outputs": [], "compressors": 0},
    ]

    def module(name, type_, parent, children, own, inputs, outputs):
        return {"name": name, "type": type_, "parent": parent, "children": children,
                "ops": own, "inputs": inputs, "outputs": outputs}

    modules = [
        module("", ROOT[1], -1, [1, 2, 3], [], [[0, [["linear", 0]]]], [[0, ["linear_1", 0]]]),
        module("linear1", LINEAR, 0, [], [5], [[0, [["linear", 0]]]], [[0, ["linear", 0]]]),
        module("relu", RELU, 0, [], [6], [[0, [["relu", 0]]]], [[0, ["relu", 0]]]),
        module("linear2", LINEAR, 0, [], [7], [[0, [["linear_1", 0]]]], [[0, ["linear_1", 0]]]),
    ]
    return {"format": "opscope-index", "version": 3, "mode": "graph", "provenance": {},
            "modules": modules, "ops": ops}


def test_hand_written_index_equals_coreai_opt(oracle):
    expected = oracle("my_model", "graph")
    for compressor in (None, "quantizer"):
        actual = canonical.from_index(my_model_index(), compressor)
        assert canonical.diff(expected[compressor], actual) == [], compressor


def test_quantizer_filter_hides_relu_but_keeps_its_edges():
    shown = canonical.from_index(my_model_index(), "quantizer")
    assert [op["name"] for op in shown["ops"]] == ["linear", "linear_1"]
    assert shown["ops"][0]["outputs"] == [[0, ["relu"]]]
    assert [m["ops"] for m in shown["modules"]] == [[], ["linear"], [], ["linear_1"]]
    assert shown["modules"][2]["inputs"] == [[0, [["relu", 0]]]]
    assert shown["ops"][0]["source"] == ["reference.py", source_line("x = self.linear1(x)")]


def test_diff_names_the_first_differences():
    good = canonical.from_index(my_model_index())
    index = my_model_index()
    bad_index = copy.deepcopy(index)
    bad_index["ops"][7]["stack"][1] = ["linear2", "torch.nn.Linear"]
    bad_index["modules"][2]["ops"] = []
    lines = canonical.diff(good, canonical.from_index(bad_index))
    text = "\n".join(lines)
    assert "op 'linear_1': module_stack" in text and "torch.nn.Linear" in text
    assert "ops order differs" in text and "'relu'" in text
    assert "module 'relu': ops" in text
