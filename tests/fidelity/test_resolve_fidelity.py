"""`opscope explain --json` against coreai-opt's own prepare(): which config entry decides
each op the Quantizer annotates (issue 10). Every entry of a config gets its own weight dtype;
during `Quantizer(model, QuantizerConfig.from_dict(config)).prepare()` the annotation's
winning config of every node (`ctx.winning_configs`, what prepare() annotates from) is
captured, and its weight dtype tells which entry won. opscope must list exactly the ops
prepare() annotates (pattern members such as the bn and relu after a conv included) and,
for each, name an entry with that dtype (None: a null entry, full precision).

Cases (issue 10's list), at least three overlapping entries per model: a specific name key
before a later parent key (governs nothing), a later container type claiming the convs of an
earlier Conv2d key, op_name_config beating op_type_config inside one module config, a Linear
type key every Linear of which is claimed by name keys, keys on pattern members (a relu or bn
module: the conv's entry configures them), GPT-2's Conv1D (configures nothing), a module
registered under two names, a null entry. One export and one prepare() per model (the times
are printed); most of the time is coreai-opt building its pattern graphs once per process."""

from __future__ import annotations

import contextlib
import copy
import io
import json
import subprocess
import time
from dataclasses import dataclass

import pytest

from conftest import build_fixture_model, get_fixture



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

RESNET18_PATTERNS = {"quantization_config": {
    "global_config": weight_only("int8"),
    "module_type_configs": {
        "torch.nn.modules.conv.Conv2d": weight_only("int4"),
        "fixtures.resnet.BasicBlock": weight_only("int6"),
        # ReLU modules: every relu is a member of a conv's or an add's pattern.
        "torch.nn.modules.activation.ReLU": weight_only("float8_e4m3fn"),
    },
    "module_name_configs": {
        r"layer3\.0\.conv1": weight_only("int2"),
        "layer3": weight_only("uint8"),
        "layer1": weight_only("uint4", op_type_config={"conv2d": weight_only("uint6"),
                                                       "relu": weight_only("float8_e5m2")},
                              op_name_config={"conv2d_2": weight_only("uint2")}),
        # A batch norm goes with the conv before it.
        r"layer2\.0\.bn1": weight_only("float4_e2m1fn_x2"),
        "fc": None,
    },
}}

GPT2_CONV1D = {"quantization_config": {
    "global_config": weight_only("int8"),
    "module_type_configs": {
        # transformers' Conv1D computes with addmm: nothing here is annotated.
        "transformers.pytorch_utils.Conv1D": weight_only("int2"),
        "transformers.models.gpt2.modeling_gpt2.GPT2Block": weight_only("int4"),
    },
    "module_name_configs": {
        r"transformer\.h\.0": weight_only("uint4", op_type_config={"matmul": weight_only("uint6")}),
        r"transformer\.h\.\d+\.mlp": weight_only("int6"),
        r"transformer\.wte": weight_only("uint2"),
        "lm_head": None,
    },
}}

ALIASED = {"quantization_config": {
    "global_config": weight_only("int8"),
    "module_name_configs": {
        "shortcut": weight_only("int4"),
        r"encoder\.0": weight_only("uint4"),
        "encoder": weight_only("int6"),
        "head": None,
    },
}}

# A name key matching only the alias (`shortcut`) claims the object, so both calls of
# encoder.0 (through `encoder` and through `shortcut`) take it, over a later type key.
ALIASED_BY_ALIAS_NAME = {"quantization_config": {
    "global_config": weight_only("int8"),
    "module_type_configs": {
        "torch.nn.modules.container.Sequential": weight_only("int6"),
        "torch.nn.modules.linear.Linear": weight_only("uint4"),
    },
    "module_name_configs": {
        r"short\w+": weight_only("int4"),
        "head": None,
    },
}}

# Type keys: the later Sequential key claims encoder with all its children, encoder.0
# included, so the call through `shortcut` takes Sequential's spec, not the Linear key's.
ALIASED_BY_TYPE = {"quantization_config": {
    "global_config": weight_only("int8"),
    "module_type_configs": {
        "torch.nn.modules.linear.Linear": weight_only("uint4"),
        "torch.nn.modules.container.Sequential": weight_only("int6"),
    },
    "module_name_configs": {"head": weight_only("uint8")},
}}

# GPT-2 ties lm_head.weight to transformer.wte.weight: one tensor, read by the embedding
# (wte's entry) and by lm_head's linear (lm_head's entry). prepare() gives it the spec of the
# reader it annotates first (lm_head: the later name key, claimed first) and the embedding
# shares that spec; explain must name lm_head's entry as the one deciding the tensor.
GPT2_TIED = {"quantization_config": {
    "global_config": weight_only("int8"),
    "module_type_configs": {"torch.nn.modules.sparse.Embedding": weight_only("uint4")},
    "module_name_configs": {
        r"transformer\.wte": weight_only("uint2"),
        "lm_head": weight_only("int4"),
    },
}}

CASES = [("resnet18", "patterns", RESNET18_PATTERNS),
         ("hf_llama", "shadowed", LLAMA_SHADOWED),
         ("hf_gpt2", "conv1d", GPT2_CONV1D),
         # coreai-opt names a module by its first name in named_modules() (the call through
         # `shortcut` takes encoder.0's config, here `encoder`'s): the export records the
         # module objects and their names (extra/opscope_modules.json, index module_objects).
         ("aliased_module", "aliases", ALIASED),
         ("aliased_module", "alias-name-key", ALIASED_BY_ALIAS_NAME),
         ("aliased_module", "alias-type-keys", ALIASED_BY_TYPE),
         ("hf_gpt2", "tied", GPT2_TIED)]


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


def _dtype_name(spec) -> str | None:
    return None if spec is None else str(spec.dtype).removeprefix("torch.")


def shared_state_dtypes(model, tied: set[str]) -> dict[str, str | None]:
    """State target -> the weight dtype prepare() annotated, for every tied tensor (a name in
    `tied`) more than one annotated node reads; a SharedQuantizationSpec is followed to the
    spec it shares."""
    readers: dict[object, list] = {}
    for node in model.graph.nodes:
        annotation = node.meta.get("quantization_annotation")
        for state, spec in ((annotation.input_qspec_map or {}).items() if annotation else ()):
            # Weights only: the test configs give every entry a weight spec and nothing else.
            if state.op in ("get_attr", "placeholder") and state.target in tied \
                    and state.target.endswith("weight"):
                readers.setdefault(state, []).append(spec)
    out: dict[str, str | None] = {}
    for state, specs in readers.items():
        if len(specs) < 2:
            continue
        spec = specs[0]
        for _ in range(8):  # SharedQuantizationSpec(edge_or_node=(state, user)): the user's spec
            edge = getattr(spec, "edge_or_node", None)
            if edge is None:
                break
            user = edge[1] if isinstance(edge, tuple) else edge
            spec = user.meta["quantization_annotation"].input_qspec_map.get(state)
        out[str(state.target)] = _dtype_name(spec)
    return out


class _Annotated(Exception):
    """Raised right after the annotation to end prepare() there (annotation_only)."""


def prepared_node_dtypes(name: str, config: dict, shared: dict | None = None,
                         built=None, annotation_only: bool = False) -> dict[str, str | None]:
    """coreai-opt's answer: node name -> weight dtype of the config prepare() annotates it
    with (None: a null entry), for every node the annotation covers. `shared` receives
    shared_state_dtypes() of the annotated graph. `built`: the (model, args) to prepare
    instead of a fresh build of fixture `name` (prepare() leaves the model as it was).
    annotation_only: stop prepare() once the graph is annotated (what is compared here); the
    rest (conv-bn fusion, observers, the calibration forward) is most of its time."""
    import coreai_opt.quantization._graph.quantizer as graph_quantizer
    from coreai_opt.quantization import Quantizer, QuantizerConfig

    winning: dict[str, object] = {}
    reconcile = graph_quantizer.annotate_via_reconciliation

    def capture(model, ctx):
        winning.update({node.name: cfg for node, cfg in ctx.winning_configs.items()})
        result = reconcile(model, ctx)
        if shared is not None:
            shared.update(shared_state_dtypes(model, tied))
        if annotation_only:
            raise _Annotated
        return result

    model, args = built or build_fixture_model(name)
    names_of: dict[int, list[str]] = {}
    for tensor_name, tensor in model.named_parameters(remove_duplicate=False):
        names_of.setdefault(id(tensor), []).append(tensor_name)
    tied = {n for names in names_of.values() if len(names) > 1 for n in names}
    graph_quantizer.annotate_via_reconciliation = capture
    try:
        # from_dict turns the dtype names of `config` into torch dtypes in place: give it a copy.
        Quantizer(model, QuantizerConfig.from_dict(copy.deepcopy(config))).prepare(args)
    except _Annotated:
        pass
    finally:
        graph_quantizer.annotate_via_reconciliation = reconcile
    out: dict[str, str | None] = {}
    for node, cfg in winning.items():
        spec = (getattr(cfg, "op_state_spec", None) or {}).get("weight")
        out[node] = None if spec is None else str(spec.dtype).removeprefix("torch.")
    return out


@dataclass
class Resolution:
    """explain --json against prepare(), op by op."""
    listed: dict[str, tuple]  # op -> path of the entry explain names
    agree: list[str]  # ops where that entry's dtype is the one prepare() annotated
    missing: list[str]  # annotated by prepare(), not listed by explain
    extra: list[str]  # listed by explain, not annotated by prepare()
    wrong: list[str]  # both, different entries: one readable line each
    tied_wrong: list[str]  # tied tensors whose deciding entry differs


def compare_resolution(config: dict, explained: dict, actual: dict,
                       shared_actual: dict) -> Resolution:
    """Compare explain's rows with prepare()'s node dtypes (prepared_node_dtypes()) for a
    config whose entries all have distinct weight dtypes."""
    dtype_of = dtype_of_paths(config)
    listed: dict[str, tuple] = {}
    for row in explained["ops"]:
        assert row["entry"] is not None, row  # every test config writes global_config
        path = tuple(row["entry"]["path"])
        assert (dtype_of[path] is None) == row["full_precision"], row
        listed[row["op_name"]] = path
    agree = sorted(op for op in listed if op in actual and dtype_of[listed[op]] == actual[op])
    missing = sorted(set(actual) - set(listed))
    extra = sorted(set(listed) - set(actual))
    wrong = [f"{op}: opscope says {dtype_of[listed[op]]} via {listed[op][1:]}, prepare() "
             f"applied {actual[op]}" for op in sorted(set(listed) & set(actual))
             if dtype_of[listed[op]] != actual[op]]
    # Tied weights: the entry explain names as deciding the shared tensor gives the dtype
    # prepare() annotated it with, whichever of its names prepare()'s graph uses.
    shared_listed: dict[str, tuple] = {}
    for row in explained["ops"]:
        for shared in row.get("shared_tensors", []):
            decided = tuple(shared["decided_by"]["entry"]["path"])
            for tensor_name in shared["names"]:
                shared_listed[tensor_name] = decided
    tied_wrong = [f"{tensor}: prepare() annotated {dtype}, explain names "
                  f"{shared_listed.get(tensor, ('nothing',))[-1]} "
                  f"({dtype_of.get(shared_listed.get(tensor), 'no dtype')})"
                  for tensor, dtype in sorted(shared_actual.items())
                  if tensor not in shared_listed or dtype_of[shared_listed[tensor]] != dtype]
    return Resolution(listed, agree, missing, extra, wrong, tied_wrong)


@pytest.mark.parametrize("name,label,config", CASES,
                         ids=["resnet18-patterns", "hf_llama-shadowed", "hf_gpt2-conv1d",
                              "aliased_module-aliases", "aliased_module-alias-name-key",
                              "aliased_module-alias-type-keys", "hf_gpt2-tied"])
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
    shared_actual: dict[str, str | None] = {}
    actual = prepared_node_dtypes(name, config, shared_actual)
    prepare_seconds = time.monotonic() - started

    result = compare_resolution(config, explained, actual, shared_actual)
    listed, missing, extra, wrong = result.listed, result.missing, result.extra, result.wrong
    tied_wrong = result.tied_wrong
    print(f"\n{name}/{label}: explain {explain_seconds:.2f} s, prepare {prepare_seconds:.1f} s; "
          f"prepare() annotates {len(actual)} ops, explain lists {len(listed)}, "
          f"{len(result.agree)} agree on the deciding entry")
    if shared_actual:
        print(f"shared tensors (prepare()): {shared_actual}")
    assert not tied_wrong, f"{name}/{label}: tied tensors differ:\n" + "\n".join(tied_wrong)
    if label == "conv1d":
        # GPT-2's Conv1D entry: prepare() applies its spec (int2) to nothing, and opscope says
        # so (no-effect, naming what those modules compute with).
        assert "int2" not in actual.values(), actual
        assert any(d["code"] == "no-effect" and "Conv1D" in d["message"] and "addmm" in d["message"]
                   for d in explained["diagnostics"]), explained["diagnostics"]
    assert not missing and not extra and not wrong, (
        f"{name}/{label}: opscope's resolution differs from prepare():\n"
        f"annotated by prepare(), not listed: {missing}\nlisted, not annotated: {extra}\n"
        + "\n".join(wrong))
