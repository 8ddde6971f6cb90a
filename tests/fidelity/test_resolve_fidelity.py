"""`opscope explain --json` against coreai-opt's own prepare(): which config entry decides
each op (issue 10). Every key of a config gets its own weight dtype; after
`Quantizer(model, QuantizerConfig.from_dict(config)).prepare()` the weight fake-quants are
traced back to the parameter they read, so each weight tells which key governed its op.
opscope must name that key for every conv2d / linear / embedding op, and say "full
precision" exactly where coreai-opt inserted no weight fake-quant.

Cases (issue 10's list): a specific name key before a later parent key (governs nothing),
a later container type claiming the convs of an earlier Conv2d key,
op_name_config beating op_type_config inside one module config, a Linear type key every
Linear of which is claimed by name keys, a null entry. Runs in a fixed budget: one export
and one prepare() call on each of two small models (the time is printed)."""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import subprocess
import time

import pytest

from conftest import build_fixture_model, get_fixture

WEIGHTED_OP_TYPES = {"conv2d", "linear", "embedding"}


def weight_only(dtype: str | None, **op_tables) -> dict | None:
    """A module / op config quantizing only weights, to `dtype` (None: the entry is null)."""
    if dtype is None:
        return None
    config = {"op_input_spec": None, "op_output_spec": None,
              "op_state_spec": {"weight": {"dtype": dtype, "granularity": {"type": "per_tensor"}}}}
    config.update(op_tables)
    return config


def dtype_of_paths(config: dict) -> dict[tuple, str | None]:
    """Every entry of `config` by its path from the document root -> its weight dtype."""
    root = config["quantization_config"]
    out: dict[tuple, str | None] = {}

    def dtype(value):
        return None if value is None else value["op_state_spec"]["weight"]["dtype"]

    def module_entry(path, value):
        out[path] = dtype(value)
        for table in ("op_name_config", "op_type_config"):
            for key, op_value in ((value or {}).get(table) or {}).items():
                out[path + (table, key)] = dtype(op_value)

    module_entry(("quantization_config", "global_config"), root["global_config"])
    for table in ("module_name_configs", "module_type_configs"):
        for key, value in (root.get(table) or {}).items():
            module_entry(("quantization_config", table, key), value)
    return out


RESNET_NESTED = {"quantization_config": {
    "global_config": weight_only("int8"),
    "module_type_configs": {
        "torch.nn.modules.conv.Conv2d": weight_only("int4"),
        # Later container type: claims the convs of every block from the Conv2d key.
        "fixtures.resnet.BasicBlock": weight_only("int6"),
    },
    "module_name_configs": {
        # Listed before its parent key: governs nothing.
        r"layer3\.0\.conv1": weight_only("int2"),
        "layer3": weight_only("uint8"),
        # op_name_config beats op_type_config inside one module config.
        "layer1": weight_only("uint4", op_type_config={"conv2d": weight_only("uint6")},
                              op_name_config={"conv2d_2": weight_only("uint2")}),
        "fc": None,
    },
}}

LLAMA_SHADOWED = {"quantization_config": {
    "global_config": weight_only("int8"),
    "module_type_configs": {
        # Every Linear is claimed by a name key below: this governs nothing.
        "torch.nn.modules.linear.Linear": weight_only("int2"),
    },
    "module_name_configs": {
        r"model\.layers\.1\.mlp\.down_proj": weight_only("uint2"),  # before its parent
        r"model\.layers\.\d+\.self_attn": weight_only("int4", op_name_config={
            r"linear_\d*[05]": weight_only("uint6")}),
        r"model\.layers\.\d+\.mlp": weight_only("int6"),
        r"model\.layers\.1\.mlp": weight_only("uint8"),
        "lm_head": weight_only("uint4"),
        r"model\.embed_tokens": None,
    },
}}

CASES = [("resnet10", "nested", RESNET_NESTED),
         ("hf_llama", "shadowed", LLAMA_SHADOWED)]


@pytest.fixture(scope="module")
def graph_index(tmp_path_factory, inspect_worker):
    """name -> path of that fixture's graph-mode index (exported once, graph mode only)."""
    from opscope_export.cli import main as helper_main

    outdir = tmp_path_factory.mktemp("resolve")
    cache: dict[str, str] = {}

    def get(name: str) -> str:
        if name not in cache:
            fixture = get_fixture(name)
            archive = str(outdir / f"{name}.pt2")
            args = [fixture.target, "--seed", str(fixture.seed), "-o", archive]
            for spec in fixture.inputs:
                args += ["--input", spec]
            stderr = io.StringIO()
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(stderr):
                code = helper_main(args)
            assert code == 0, f"exporting {name} failed:\n{stderr.getvalue()}"
            index_path = str(outdir / f"{name}.graph.json")
            proc = subprocess.run([inspect_worker, archive, "--mode", "graph", "-o", index_path],
                                  capture_output=True, text=True, timeout=300)
            assert proc.returncode == 0, proc.stderr
            cache[name] = index_path
        return cache[name]

    return get


@pytest.fixture(scope="module")
def opscope_bin() -> str:
    path = os.environ.get("OPSCOPE_BIN", "")
    if not path or not os.access(path, os.X_OK):
        pytest.fail(f"OPSCOPE_BIN={path!r} is not the opscope binary; run via ctest",
                    pytrace=False)
    return path


def prepared_weight_dtypes(name: str, config: dict) -> dict[str, str]:
    """coreai-opt's answer: parameter name -> dtype of the fake-quant on it."""
    from coreai_opt.quantization import Quantizer, QuantizerConfig

    model, args = build_fixture_model(name)
    # from_dict turns the dtype names of `config` into torch dtypes in place: give it a copy.
    prepared = Quantizer(model, QuantizerConfig.from_dict(copy.deepcopy(config))).prepare(args)
    dtypes: dict[str, str] = {}
    for node in prepared.graph.nodes:
        if node.op != "call_module":
            continue
        fake_quant = prepared.get_submodule(node.target)
        if not hasattr(fake_quant, "dtype"):
            continue
        # Back from the fake-quant to the parameter it reads (through the conv-bn
        # folding's `mul`, for instance).
        stack, seen, params = [node.args[0]], set(), []
        while stack:
            arg = stack.pop()
            if not hasattr(arg, "op") or arg in seen:
                continue
            seen.add(arg)
            if arg.op == "get_attr":
                params.append(arg.target)
            elif arg.op == "call_function":
                stack.extend(a for a in arg.all_input_nodes)
        for param in params:
            if param.endswith(".weight"):
                dtypes[param] = str(fake_quant.dtype).removeprefix("torch.")
    return dtypes


@pytest.mark.parametrize("name,label,config", CASES, ids=[f"{n}-{l}" for n, l, _ in CASES])
def test_explain_names_the_key_prepare_applies(name, label, config, graph_index, opscope_bin,
                                               tmp_path, coreai_opt):
    index_path = graph_index(name)
    config_path = tmp_path / f"{label}.json"
    config_path.write_text(json.dumps(config, indent=2))

    started = time.monotonic()
    proc = subprocess.run([opscope_bin, "explain", str(config_path), "--model", index_path,
                           "--json"], capture_output=True, text=True, timeout=60)
    explain_seconds = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr
    explained = json.loads(proc.stdout)

    started = time.monotonic()
    actual = prepared_weight_dtypes(name, config)
    prepare_seconds = time.monotonic() - started
    print(f"\n{name}/{label}: explain {explain_seconds:.2f} s, prepare {prepare_seconds:.1f} s")

    with open(index_path, encoding="utf-8") as f:
        ops = {op["name"]: op for op in json.load(f)["ops"]}
    dtype_of = dtype_of_paths(config)
    expected: dict[str, str | None] = {}
    entries: dict[str, list] = {}
    for row in explained["ops"]:
        if row["op_type"] not in WEIGHTED_OP_TYPES:
            continue
        assert row["entry"] is not None, row  # every test config writes global_config
        dtype = dtype_of[tuple(row["entry"]["path"])]
        assert (dtype is None) == row["full_precision"], row
        for edge in ops[row["op_name"]]["inputs"]:
            if edge.get("state") and edge["producer"].endswith(".weight"):
                expected[edge["producer"]] = dtype
                entries[edge["producer"]] = [row["op_name"], *row["entry"]["path"][1:]]

    assert expected, "explain listed no weighted op"
    # Weights of other ops (batch norms folded into a conv pattern, RMSNorm scales) follow
    # pattern groups, not compared yet.
    others = sorted(set(actual) - set(expected))
    print(f"  {len(expected)} weighted ops compared, {len(others)} other quantized weights skipped")
    wrong = [f"{p}: opscope says {expected[p]} via {entries[p]}, coreai-opt applied "
             f"{actual.get(p)}"
             for p in sorted(expected) if expected[p] != actual.get(p)]
    assert not wrong, f"{name}/{label}: opscope's resolution differs from prepare():\n" + \
        "\n".join(wrong)
