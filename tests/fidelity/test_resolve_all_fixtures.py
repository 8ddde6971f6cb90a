"""`opscope explain --json` against coreai-opt's prepare() on EVERY registry fixture (issue 10):
for each, three configs with overlapping entries are generated from the fixture's own graph
index (its module names, module types and op types; nothing is written per fixture), and
which entry decides each op prepare() annotates (full precision included) must agree op by
op, with test_resolve_fidelity.py's machinery (every entry its own weight dtype).

The configs: "types" (a global op_type_config entry, the leaf's module type key, a later key
on its parent's type that claims it, a name key on the leaf listed before its parent's
name key), "subtree" (a name regex covering a top-level subtree with op_type_config and
op_name_config inside, a later, more specific name key, a null name key, a type key every
name key beats) and "nulls" (a null op_type entry in global_config, two type keys, a null
name key on the leaf, a later subtree regex with an op_name_config entry).

Size: coreai-opt's bits_per_weight() refuses graph-mode prepared models (NotImplementedError:
"Graph mode prepared models are not supported currently"), so the same three configs run
again with execution_mode: eager (op_name_config dropped: eager op names are not graph node
names) on every fixture eager mode can run, and explain's "size" on the eager index must be
bits_per_weight()'s after the eager prepare() (test_size_fidelity.py's comparison).

Time: one export per fixture (the session's), and one torch.export per fixture: prepare()'s
export of the same model object is reused across its three configs (a deep copy each time;
prepare() changes the exported graph, never the model). The first config of a fixture runs
prepare() to its end, so a fixture prepare() refuses fails here with coreai-opt's error; the
other two stop right after the annotation (the conv-bn fusion, observers and calibration
forward after it are most of prepare()'s time and decide nothing compared here). Prints one
agreement line per fixture."""

from __future__ import annotations

import collections
import copy
import json
import re
import subprocess
import time

import pytest

from conftest import FIXTURE_NAMES, GRAPH_FIXTURE_NAMES, build_fixture_model
from test_resolve_fidelity import compare_resolution, prepared_node_dtypes, weight_only
from test_size_fidelity import coreai_bits_per_weight

QUANTIZER_BIT = 1  # the index's per-op compressor bit set: bit 0 is the Quantizer


class FixtureShape:
    """What the generated configs key on, read from a graph index."""

    def __init__(self, index: dict):
        modules = index["modules"]
        self.modules = modules
        module_of: dict[int, int] = {}
        for position, module in enumerate(modules):
            for op in module["ops"]:
                module_of[op] = position  # leaf-most: a module lists its own calls only
        ops = index["ops"]
        annotated = [i for i, op in enumerate(ops)
                     if op["kind"] == "call" and op["compressors"] & QUANTIZER_BIT]
        weighted = [i for i in annotated if any(e.get("state") for e in ops[i]["inputs"])]
        # A model the Quantizer annotates nothing in (cond_branches: its ops sit in torch.cond
        # branches): the configs key on its calls all the same, and both sides list no op.
        chosen = weighted or annotated or [i for i, op in enumerate(ops) if op["kind"] == "call"]
        assert chosen, "the model calls nothing"
        self.op_type = collections.Counter(ops[i]["type"] for i in chosen).most_common(1)[0][0]
        in_module = [i for i in chosen if module_of.get(i, 0) > 0]
        # The leaf: the module of the first op of that type inside a submodule (else of the
        # first weighted op; the root if none).
        of_type = [i for i in in_module if ops[i]["type"] == self.op_type]
        self.leaf = module_of[(of_type or in_module)[0]] if in_module else 0
        self.parent = modules[self.leaf]["parent"] if self.leaf else -1

        def top_of(position: int) -> int:
            while position > 0 and modules[position]["parent"] > 0:
                position = modules[position]["parent"]
            return position

        tops = collections.Counter(top_of(module_of[i]) for i in in_module)
        self.top = tops.most_common(1)[0][0] if tops else 0
        in_top = [i for i in in_module if top_of(module_of[i]) == self.top]
        self.top_ops = [ops[i]["name"] for i in in_top]
        # A module deeper in the top subtree (the last op's), and one outside it.
        self.deep = module_of[in_top[-1]] if in_top else 0
        outside = [module_of[i] for i in in_module if top_of(module_of[i]) != self.top]
        self.outside = outside[-1] if outside else 0

    def name(self, position: int) -> str:
        return self.modules[position]["name"]

    def type(self, position: int) -> str:
        return self.modules[position]["type"]


def generated_configs(shape: FixtureShape) -> list[tuple[str, dict]]:
    s = shape
    configs = []

    # "types": global op_type entry; leaf type key, then its parent's type (later: claims it);
    # a name key on the leaf before the parent's name key (governs nothing when nested).
    types = {s.type(s.leaf): weight_only("int4")}
    names = {}
    if s.leaf:
        names[re.escape(s.name(s.leaf))] = weight_only("int2")
    if s.parent > 0:
        types[s.type(s.parent)] = weight_only("int6")
        names[re.escape(s.name(s.parent))] = weight_only("uint4")
    root = {"global_config": weight_only("int8", op_type_config={s.op_type: weight_only("uint8")}),
            "module_type_configs": types}
    if names:
        root["module_name_configs"] = names
    configs.append(("types", {"quantization_config": root}))

    # "subtree": a regex covering a top-level module and everything under it, with op entries;
    # a later, more specific key; a null key outside; a type key all name keys beat.
    names = {}
    if s.top:
        top = re.escape(s.name(s.top))
        op_names = {re.escape(s.top_ops[-1]): weight_only("uint2")} if s.top_ops else {}
        names[rf"{top}(\..+)?"] = weight_only("uint4", op_type_config={
            s.op_type: weight_only("uint6")}, op_name_config=op_names)
        if s.deep != s.top:
            names[re.escape(s.name(s.deep))] = weight_only("int4")
    if s.outside:
        names[re.escape(s.name(s.outside))] = None
    root = {"global_config": weight_only("int8"),
            "module_type_configs": {s.type(s.leaf): weight_only("int6")}}
    if names:
        root["module_name_configs"] = names
    configs.append(("subtree", {"quantization_config": root}))

    # "nulls": a null op_type entry in global_config; two type keys; a null name key on the
    # leaf, then a regex on the top subtree's children with an op_name_config entry.
    types = {s.type(s.deep): weight_only("uint4"), s.type(s.top): weight_only("int4")}
    names = {}
    if s.leaf:
        names[re.escape(s.name(s.leaf))] = None
    if s.top:
        op_names = {re.escape(s.top_ops[0]): weight_only("uint8")} if s.top_ops else {}
        names[re.escape(s.name(s.top)) + r"\..*"] = weight_only("int6", op_name_config=op_names)
    root = {"global_config": weight_only("int8", op_type_config={s.op_type: None}),
            "module_type_configs": types}
    if names:
        root["module_name_configs"] = names
    configs.append(("nulls", {"quantization_config": root}))
    return configs


class ExportOnce:
    """Within the block, prepare() of `model` reuses its first torch.export (a deep copy per
    call: prepare_qat_pt2e rewrites the graph it is given)."""

    def __init__(self, model):
        import coreai_opt.quantization._graph.quantizer as graph_quantizer

        self.module = graph_quantizer
        self.model = model
        self.exported = None

    def __enter__(self):
        real = self.real = self.module.export_model

        def export_model(model, *args, **kwargs):
            if model is not self.model:
                return real(model, *args, **kwargs)
            if self.exported is None:
                self.exported = real(model, *args, **kwargs)
            return copy.deepcopy(self.exported)

        self.module.export_model = export_model
        return self

    def __exit__(self, *exc):
        self.module.export_model = self.real


def in_eager_mode(config: dict) -> dict:
    """The config with execution_mode: eager and no op_name_config tables."""
    config = copy.deepcopy(config)
    root = config["quantization_config"]
    root["execution_mode"] = "eager"
    for entry in [root["global_config"], *(v for table in ("module_name_configs",
                  "module_type_configs") for v in (root.get(table) or {}).values())]:
        if entry is not None:
            entry.pop("op_name_config", None)
    return config


@pytest.fixture(scope="module")
def index_file(fixture_archive, inspect_worker, tmp_path_factory):
    outdir = tmp_path_factory.mktemp("all_fixtures")
    cache: dict = {}

    def get(name: str, mode: str = "graph") -> str:
        if (name, mode) not in cache:
            path = str(outdir / f"{name}.{mode}.json")
            proc = subprocess.run([inspect_worker, fixture_archive(name), "--mode", mode,
                                   "-o", path], capture_output=True, text=True, timeout=300)
            assert proc.returncode == 0, proc.stderr
            cache[(name, mode)] = path
        return cache[(name, mode)]

    return get


@pytest.mark.parametrize("name", GRAPH_FIXTURE_NAMES)
def test_explain_agrees_with_prepare_on_every_fixture(name, index_file, opscope_bin,
                                                      tmp_path, coreai_opt):
    started = time.monotonic()
    index_path = index_file(name)
    with open(index_path, encoding="utf-8") as f:
        shape = FixtureShape(json.load(f))
    export_seconds = time.monotonic() - started
    built = build_fixture_model(name)
    lines, failures, explain_seconds, prepare_seconds = [], [], 0.0, 0.0
    with ExportOnce(built[0]):
        for number, (label, config) in enumerate(generated_configs(shape)):
            config_path = tmp_path / f"{label}.json"
            config_path.write_text(json.dumps(config, indent=2))
            started = time.monotonic()
            proc = subprocess.run([opscope_bin, "explain", str(config_path), "--model",
                                   index_path, "--json"], capture_output=True, text=True,
                                  timeout=60)
            explain_seconds += time.monotonic() - started
            assert proc.returncode == 0, f"{name}/{label}: {proc.stderr}"
            explained = json.loads(proc.stdout)
            started = time.monotonic()
            shared: dict[str, str | None] = {}
            try:
                # The first config runs prepare() to its end (a refusal shows there); the
                # others stop once the graph is annotated.
                actual = prepared_node_dtypes(name, config, shared, built,
                                              annotation_only=number > 0)
            except Exception as exc:  # listed, never skipped
                pytest.fail(f"{name}/{label}: coreai-opt's prepare() refuses the config "
                            f"{json.dumps(config)}: {type(exc).__name__}: {exc}", pytrace=False)
            prepare_seconds += time.monotonic() - started
            result = compare_resolution(config, explained, actual, shared)
            decided = collections.Counter(  # by the tables of the deciding entry's path
                "/".join(p.removesuffix("_config").removesuffix("_configs")
                         for p in result.listed[op][1:] if p.endswith(("_config", "_configs")))
                for op in result.agree)
            lines.append(f"{label} {len(result.agree)}/{len(actual)} "
                         f"({', '.join(f'{k} {v}' for k, v in sorted(decided.items()))})")
            if result.missing or result.extra or result.wrong or result.tied_wrong:
                failures.append(
                    f"{name}/{label} {json.dumps(config)}:\nannotated by prepare(), not listed: "
                    f"{result.missing}\nlisted, not annotated: {result.extra}\n"
                    + "\n".join(result.wrong + result.tied_wrong))
    print(f"\n{name}: agree {'; '.join(lines)}; export+index {export_seconds:.1f} s, explain "
          f"{explain_seconds:.2f} s, prepare {prepare_seconds:.1f} s")
    assert not failures, "opscope's resolution differs from prepare():\n" + "\n".join(failures)


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_projected_size_agrees_on_every_fixture(name, index_file, opscope_bin, tmp_path,
                                                coreai_opt):
    with open(index_file(name), encoding="utf-8") as f:
        shape = FixtureShape(json.load(f))
    eager_index = index_file(name, "eager")
    lines, failures = [], []
    started = time.monotonic()
    for label, config in generated_configs(shape):
        config = in_eager_mode(config)
        config_path = tmp_path / f"{label}.json"
        config_path.write_text(json.dumps(config, indent=2))
        proc = subprocess.run([opscope_bin, "explain", str(config_path), "--model",
                               eager_index, "--json"], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, f"{name}/{label}: {proc.stderr}"
        size = json.loads(proc.stdout)["size"]
        assert "unavailable" not in size, f"{name}/{label}: {size}"
        try:
            expected, _ = coreai_bits_per_weight(name, config)
        except Exception as exc:  # listed, never skipped
            pytest.fail(f"{name}/{label}: coreai-opt's eager prepare() or bits_per_weight() "
                        f"refuses {json.dumps(config)}: {type(exc).__name__}: {exc}",
                        pytrace=False)
        after = size["bits_per_weight"]["after"]
        lines.append(f"{label} {after:.4f}/{expected.bpw:.4f}")
        if (size["weights"] != expected.total_weights or abs(after - expected.bpw) > 0.01
                or size["bits"]["after"] != expected.total_bits):
            failures.append(f"{name}/{label} {json.dumps(config)}: opscope {size['weights']} "
                            f"weights, {size['bits']['after']} bits, {after} bpw; coreai-opt "
                            f"{expected.total_weights}, {expected.total_bits}, {expected.bpw}")
    print(f"\n{name}: bpw opscope/coreai-opt {'; '.join(lines)}; "
          f"{time.monotonic() - started:.1f} s")
    assert not failures, "explain's size differs from bits_per_weight():\n" + "\n".join(failures)
