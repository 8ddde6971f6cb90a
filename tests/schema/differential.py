"""Differential test of opscope's config check, with coreai-opt as the judge.

From a corpus of valid configs (the reference documents' YAML examples, the repository's
example configs, and seeds written here for what those do not cover), generate mutations
(renamed keys, changed values, wrong types, moved and deleted blocks, added fields, deleted
lines, JSON spellings); each is loaded by coreai-opt's from_yaml, which accepts or raises,
and checked by opscope (schema_judge: the same diagnose() + schema diagnostics as the editor
and `opscope check`). opscope must report an error exactly when coreai-opt raises.

Prints the agreement rate per compressor. Every disagreement must match a known limit
(KNOWN_LIMITS below, each explained); any other fails the test.
"""

from __future__ import annotations

import argparse
import copy
import io
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = Path(os.environ.get("OPSCOPE_REFERENCE_DIR", "/work/shared/reference"))

ROOT_KEYS = {
    "quantization_config": "quantizer",
    "kmeans_palettization_config": "palettizer",
    "magnitude_pruning_config": "pruner",
}

# Seeds for fields the documents' examples do not reach (valid in coreai-opt 0.4.0).
SEEDS = [
    """quantization_config:
  execution_mode: eager
  preserved_attributes: [config]
  global_config:
    op_state_spec:
      weight:
        dtype: int4
        qscheme: asymmetric
        qformulation: minval
        granularity: {type: per_block, axis: 1, block_size: 32}
        qparam_calculator_cls: static
        range_calculator_cls: minmax
    op_input_spec: null
    qat_schedule: {enable_observer: 0, enable_fake_quant: 10, disable_observer: 20}
  module_type_configs:
    torch.nn.modules.linear.Linear:
      op_state_spec:
        weight: {dtype: uint8, granularity: {type: per_channel, axis: 0}, float_range: [-1.0, 1.0]}
  module_name_configs:
    "layer1\\\\..*":
      module_output_spec:
        "*": {dtype: int8, granularity: {type: per_tensor}}
      op_type_config:
        conv2d:
          op_state_spec:
            weight: {dtype: int8, granularity: {type: per_block, block_size: [4, 8, -1, -1]}}
""",
    """quantization_config:
  global_config:
    op_input_spec:
      0: {dtype: float8_e4m3fn, qparam_calculator_cls: dynamic}
    op_output_spec: {}
    op_state_spec:
      weight: {dtype: float4_e2m1fn_x2, granularity: {type: per_block, block_size: 32, axis: 1}}
      bias: null
    op_name_config:
      "fc.*": null
""",
    """kmeans_palettization_config:
  global_config:
    enable_fast_kmeans_mode: false
    rounding_precision: 3
    pat_schedule: {enable_fake_palettize: 5}
    vector_kmeans_config: {n_init: 3, max_iter: 100, tol: 0.001}
    op_state_spec:
      weight:
        n_bits: 2
        cluster_dim: 2
        granularity: {type: per_grouped_channel, axis: 0, group_size: 8}
        enable_per_channel_scale: true
        sparsity_detection_threshold: 0.5
        lut_qspec: {dtype: int8, qscheme: symmetric}
  module_name_configs:
    "conv1":
      op_state_spec:
        weight: {n_bits: 4, granularity: {type: per_tensor}}
  module_type_configs:
    torch.nn.modules.linear.Linear: null
""",
    """kmeans_palettization_config:
  global_config:
    op_state_spec:
      weight: {n_bits: 6}
    op_type_config:
      linear:
        op_state_spec:
          weight: {n_bits: 8, training_strategy_spec: {type: default}}
""",
    """magnitude_pruning_config:
  global_config:
    op_state_spec:
      weight:
        target_sparsity: 0.75
        pruning_scheme: {type: channel_structured, axis: 0}
        pruning_algo: default
    sparsity_schedule: null
  module_name_configs:
    "encoder\\\\..*":
      op_state_spec:
        weight: {target_sparsity: 0.5, pruning_scheme: {type: unstructured}}
      module_state_spec:
        weight: {target_sparsity: 0.25}
""",
    """magnitude_pruning_config:
  global_config:
    op_state_spec:
      weight: {target_sparsity: 0.3}
  module_type_configs:
    torch.nn.modules.conv.Conv2d:
      op_state_spec: null
""",
    """magnitude_pruning_config:
  global_config:
    op_state_spec:
      "*": {target_sparsity: 0.9, pruning_scheme: {type: unstructured}}
    op_name_config:
      "lm_head": null
""",
]

# Values tried in place of a value: valid ones of several fields (so that many mutations stay
# valid), invalid ones, and each YAML type.
VALUE_POOL = [
    "int9", "int4", "uint8", "int8", "float8_e4m3fn", "float4_e2m1fn_x2", "float8_e8m0fnu",
    "bfloat16", "per_chanel", "per_channel", "per_tensor", "per_block", "per_grouped_channel",
    "symmetric", "asymmetric", "symmetric_with_clipping", "minval", "zp", "graph", "eager",
    "pt2e", "GRAPH", "dynamic", "static", "moving_average", "minmax", "default", "unstructured",
    "channel_structured", "constant", "polynomial_decay", "abc", "", "4", "0.5", "yes",
    0, 1, 2, 3, 4, 8, 17, 32, -1, -2, 0.0, 0.5, 1.5, 1e-4, 100, True, False, None,
    [], [1], [-1.0, 1.0], [1.0, -1.0], [None, 1], [0, 0], [4, 8], {}, {"type": "per_tensor"},
    {"type": "per_channel", "axis": 0}, {"type": "per_block", "block_size": 16},
    {"type": "per_grouped_channel", "group_size": 4}, {"dtype": "int4"}, {"n_bits": 2},
    {"target_sparsity": 0.5}, {"weight": None}, {"*": None}, {"weight": {}},
]

FIELD_POOL = [
    "dtype", "qscheme", "qformulation", "granularity", "axis", "block_size", "group_size",
    "n_bits", "cluster_dim", "lut_qspec", "target_sparsity", "pruning_scheme", "op_state_spec",
    "op_input_spec", "op_output_spec", "module_state_spec", "module_input_spec",
    "module_output_spec", "op_type_config", "op_name_config", "global_config",
    "module_type_configs", "module_name_configs", "execution_mode", "qat_schedule",
    "enable_observer", "enable_fake_quant", "disable_observer", "scale_dtype", "float_range",
    "enable_fast_kmeans_mode", "vector_kmeans_config", "sparsity_schedule", "type",
    "preserved_attributes", "kv_cache_quant_configs", "pat_schedule", "rounding_precision",
]

# Disagreements that remain, each a limit of opscope's check (not of the generator), with why.
# A predicate gets (text, coreai_error, opscope_errors) and says whether the limit explains it.
KNOWN_LIMITS = [
    ("PyYAML syntax the tolerant reader accepts",
     "opscope reads half-typed documents on purpose; a few YAML errors PyYAML raises (e.g. a "
     "deleted line leaving a block mapping misindented in ways the scanner recovers from) "
     "are not reported as syntax errors",
     lambda text, err, ours: err.startswith("yaml.") and not ours),
    ("validators not ported",
     "coreai-opt model validators opscope does not port: "
     "QuantizerConfig._validate_kv_cache_quant_configs, KVCacheQuantConfig's own; also "
     "duplicate int/str keys (`0` and \"0\") that the digit-key validator refuses",
     lambda text, err, ours: not ours and any(s in err for s in ("kv_cache", "Key collision"))),
]


def yaml_blocks(markdown: str) -> list[str]:
    return re.findall(r"```ya?ml\n(.*?)```", markdown, re.S)


def seeds() -> list[str]:
    found = list(SEEDS)
    for doc in sorted(REFERENCE.glob("coreai-opt-*-config.md")):
        found += [b for b in yaml_blocks(doc.read_text()) if any(k in b for k in ROOT_KEYS)]
    for path in sorted((ROOT / "examples").rglob("*.yaml")):
        text = path.read_text()
        if any(k in text for k in ROOT_KEYS):
            found.append(text)
    for path in sorted((ROOT / "tests/fuzz/corpus").rglob("*")):
        if path.suffix in (".yaml", ".json") and path.stat().st_size < 20_000:
            text = path.read_text(errors="replace")
            if any(k in text for k in ROOT_KEYS):
                found.append(text)
    return found


class Judge:
    """coreai-opt, loading a config the way users do."""

    def __init__(self, pure_yaml: bool = False):
        self.pure_yaml = pure_yaml
        warnings.simplefilter("ignore")
        import logging

        logging.disable(logging.CRITICAL)
        from coreai_opt.palettization.config.palettization_config import KMeansPalettizerConfig
        from coreai_opt.pruning.config.magnitude_pruner_config import MagnitudePrunerConfig
        from coreai_opt.quantization.config.quantization_config import QuantizerConfig

        self.classes = {"quantizer": QuantizerConfig, "palettizer": KMeansPalettizerConfig,
                        "pruner": MagnitudePrunerConfig}

    def refuses(self, text: str, compressor: str) -> str:
        """'' when coreai-opt accepts the config, else its error (module-qualified type).

        What from_yaml does (safe_load, None for an empty document, a dict required, then
        from_dict), with libyaml's safe loader when PyYAML has it: the pure-Python one takes
        20 ms a config, which would put the test over its minute. `--pure-yaml` calls
        from_yaml itself."""
        try:
            cls = self.classes[compressor]
            if self.pure_yaml:
                cls.from_yaml(io.StringIO(text))
                return ""
            import yaml

            data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
            if data is None:
                return ""
            if not isinstance(data, dict):
                raise ValueError(f"Invalid YAML: expected dict, got {type(data)}.")
            cls.from_dict(data)
            return ""
        except Exception as exc:  # noqa: BLE001 - any exception is a refusal
            kind = type(exc)
            return f"{kind.__module__}.{kind.__name__}: {exc}".replace("\n", " ")[:400]


def compressor_of(doc) -> str | None:
    if isinstance(doc, dict):
        for key in doc:
            if key in ROOT_KEYS:
                return ROOT_KEYS[key]
    return None


def paths(node, prefix=()):
    """Every (path, value) below node."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield prefix + (k,), v
            yield from paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield prefix + (i,), v
            yield from paths(v, prefix + (i,))


def parent_of(doc, path):
    node = doc
    for p in path[:-1]:
        node = node[p]
    return node


def typo(word: str, rng: random.Random) -> str:
    if not word:
        return "x"
    i = rng.randrange(len(word))
    choice = rng.randrange(4)
    if choice == 0:
        return word[:i] + word[i + 1:] or word + "x"
    if choice == 1 and len(word) > 1:
        j = min(i + 1, len(word) - 1)
        chars = list(word)
        chars[i], chars[j] = chars[j], chars[i]
        return "".join(chars) if "".join(chars) != word else word + "s"
    if choice == 2:
        return word + "s"
    return word[:i] + rng.choice("abcdefghijklmnopqrstuvwxyz_") + word[i:]


def mutate(doc, rng: random.Random):
    """One structural mutation of a loaded config; returns (doc, description)."""
    doc = copy.deepcopy(doc)
    all_paths = [p for p, _ in paths(doc)]
    if not all_paths:
        return doc, "empty"
    path = rng.choice(all_paths)
    parent = parent_of(doc, path)
    key = path[-1]
    op = rng.randrange(9)
    if op == 0 and isinstance(parent, dict) and isinstance(key, str):  # rename (typo)
        value = parent.pop(key)
        parent[typo(key, rng)] = value
        return doc, "rename"
    if op == 1 and isinstance(parent, dict):  # rename to another field's name
        value = parent.pop(key)
        parent[rng.choice(FIELD_POOL)] = value
        return doc, "rename-field"
    if op in (2, 3):  # change a value
        parent[key] = copy.deepcopy(rng.choice(VALUE_POOL))
        return doc, "value"
    if op == 4:  # delete
        del parent[key]
        return doc, "delete"
    if op == 5:  # add a field with a value
        target = parent[key] if isinstance(parent[key], dict) else parent
        if isinstance(target, dict):
            target[rng.choice(FIELD_POOL)] = copy.deepcopy(rng.choice(VALUE_POOL))
        return doc, "add"
    if op == 6:  # move a block under another mapping
        value = parent[key] if isinstance(parent, dict) else None
        dicts = [p for p, v in paths(doc) if isinstance(v, dict) and p[:len(path)] != path]
        if value is not None and dicts:
            dest = rng.choice(dicts)
            target = parent_of(doc, dest + ("x",))[dest[-1]]
            if target is not parent:
                del parent[key]
                target[key] = value
        return doc, "move"
    if op == 7:  # wrong container
        value = parent[key]
        parent[key] = [value] if not isinstance(value, list) else {"x": value}
        return doc, "wrap"
    # stringify a scalar (quoted number / boolean)
    value = parent[key]
    parent[key] = str(value) if not isinstance(value, (dict, list)) else None
    return doc, "stringify"


def render(doc, rng: random.Random) -> tuple[str, str]:
    import yaml

    style = rng.randrange(10)
    if style == 0:
        return json.dumps(doc, indent=2), ".json"
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    flow = rng.random() < 0.3
    return yaml.dump(doc, Dumper=dumper, sort_keys=False, default_flow_style=flow), ".yaml"


def text_mutation(text: str, rng: random.Random) -> str:
    """Mutations of the written text (anchors kept): a deleted line, a changed token."""
    lines = text.splitlines(keepends=True)
    if not lines:
        return text
    if rng.random() < 0.5:
        del lines[rng.randrange(len(lines))]
        return "".join(lines)
    i = rng.randrange(len(lines))
    m = list(re.finditer(r"(?<=: )[A-Za-z0-9_.*-]+", lines[i]))
    if m:
        hit = rng.choice(m)
        replacement = str(rng.choice([v for v in VALUE_POOL if isinstance(v, (str, int, float))]))
        lines[i] = lines[i][:hit.start()] + replacement + lines[i][hit.end():]
    return "".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--judge", required=True, help="the schema_judge binary")
    parser.add_argument("--per-compressor", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--schema", help="a schema dump for schema_judge (default: built-in)")
    parser.add_argument("--pure-yaml", action="store_true",
                        help="judge with from_yaml itself (PyYAML's pure-Python loader; slow)")
    parser.add_argument("--show", type=int, default=8, help="disagreements printed per kind")
    args = parser.parse_args()
    import yaml

    started = time.monotonic()
    rng = random.Random(args.seed)
    judge = Judge(pure_yaml=args.pure_yaml)
    corpus: dict[str, list] = {c: [] for c in ROOT_KEYS.values()}
    raw_seeds: dict[str, list[str]] = {c: [] for c in ROOT_KEYS.values()}
    for text in seeds():
        try:
            doc = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        except yaml.YAMLError:
            continue
        compressor = compressor_of(doc)
        if compressor and not judge.refuses(text, compressor):
            corpus[compressor].append(doc)
            raw_seeds[compressor].append(text)
        elif compressor and text in SEEDS:
            raise AssertionError(f"a seed coreai-opt refuses: {judge.refuses(text, compressor)}")
    for compressor, docs in corpus.items():
        print(f"seeds: {compressor}: {len(docs)} valid configs")
        assert docs, f"no valid seed config for {compressor}"

    cases = []  # (compressor, text, suffix, kind)
    for compressor, docs in corpus.items():
        seen = set()
        attempts = 0
        while sum(1 for c in cases if c[0] == compressor) < args.per_compressor:
            attempts += 1
            assert attempts < args.per_compressor * 20, "the generator keeps repeating itself"
            if rng.random() < 0.15:
                text, suffix, kind = text_mutation(rng.choice(raw_seeds[compressor]), rng), ".yaml", "text"
            else:
                doc = rng.choice(docs)
                kind = "none"
                for _ in range(rng.choice((1, 1, 1, 2, 3))):
                    try:
                        doc, kind = mutate(doc, rng)
                    except (KeyError, IndexError, TypeError):
                        pass  # a path gone with a shared (anchored) block: next mutation
                text, suffix = render(doc, rng)
            if text in seen:
                continue
            seen.add(text)
            cases.append((compressor, text, suffix, kind))

    with tempfile.TemporaryDirectory(prefix="opscope-differential-") as tmp:
        names = []
        for i, (_, text, suffix, _) in enumerate(cases):
            name = os.path.join(tmp, f"c{i:05d}{suffix}")
            Path(name).write_text(text)
            names.append(name)
        cmd = [args.judge] + ([args.schema] if args.schema else [])
        roots = {c: k for k, c in ROOT_KEYS.items()}
        lines = [f"{n}\t{roots[c[0]]}" for n, c in zip(names, cases)]
        out = subprocess.run(cmd, input="\n".join(lines) + "\n", capture_output=True, text=True,
                             check=True).stdout.splitlines()
    assert len(out) == len(cases), f"schema_judge answered {len(out)} of {len(cases)} configs"
    ours = [json.loads(line)["errors"] for line in out]

    failures = 0
    explained: dict[str, int] = {}
    for compressor in corpus:
        agree = total = refused = 0
        unexplained = []
        for (c, text, suffix, kind), errors in zip(cases, ours):
            if c != compressor:
                continue
            total += 1
            theirs = judge.refuses(text, compressor)
            refused += bool(theirs)
            if bool(theirs) == bool(errors):
                agree += 1
                continue
            limit = next((name for name, _, test in KNOWN_LIMITS if test(text, theirs, errors)), None)
            if limit:
                explained[limit] = explained.get(limit, 0) + 1
            else:
                unexplained.append((kind, suffix, text, theirs, errors))
        rate = 100.0 * agree / total
        print(f"{compressor}: {total} configs ({refused} refused by coreai-opt), agreement "
              f"{agree}/{total} = {rate:.2f} %, unexplained disagreements: {len(unexplained)}")
        for kind, suffix, text, theirs, errors in unexplained[: args.show]:
            print(f"--- [{kind}{suffix}] coreai-opt: {theirs or 'accepts'}")
            print(f"    opscope: {[e['code'] + ' ' + e['message'] for e in errors] or 'no error'}")
            print("    " + text.replace("\n", "\n    ")[:1500])
        failures += len(unexplained)
    for name, _, _ in KNOWN_LIMITS:
        print(f"known limit '{name}': {explained.get(name, 0)} configs")
    print(f"elapsed {time.monotonic() - started:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
