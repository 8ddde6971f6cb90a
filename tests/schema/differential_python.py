"""Differential test of opscope's check of Python configs, with coreai-opt as the judge.

The valid configs of the YAML differential test (differential.py), mutated the same way
(renamed keys, changed values, wrong types, moved and deleted blocks, added fields), are
written as Python in the shapes users write: `X.from_dict({...})`, constructor calls
(`QuantizerConfig(global_config=ModuleQuantizerConfig(op_state_spec={"weight":
QuantizationSpec(dtype="int4", granularity=PerChannelGranularity(axis=0))}))`), a module config
bound to a variable first, and setters. Values coreai-opt accepts that opscope does not evaluate
(`torch.int4`, `QuantizationScheme.SYMMETRIC`, a variable) are mixed in: they must never be
reported. Each program runs with coreai-opt (exec, in this test's own process); opscope
(schema_judge, the editor's and `opscope check`'s diagnostics) must report an error exactly when
the program raises. Prints the agreement rate per compressor; every disagreement must match a
known limit.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import differential as yaml_differential  # noqa: E402  (the corpus and the mutations)

CLASSES = {
    "quantizer": ("QuantizerConfig", "ModuleQuantizerConfig", "OpQuantizerConfig",
                  "QuantizationSpec"),
    "palettizer": ("KMeansPalettizerConfig", "ModuleKMeansPalettizerConfig",
                   "OpKMeansPalettizerConfig", "PalettizationSpec"),
    "pruner": ("MagnitudePrunerConfig", "ModuleMagnitudePrunerConfig", "OpMagnitudePrunerConfig",
               "PruningSpec"),
}

IMPORTS = """import torch
from coreai_opt.quantization import QuantizerConfig, ModuleQuantizerConfig, QuantizationSpec
from coreai_opt.quantization.config.quantization_config import OpQuantizerConfig, QATSchedule
from coreai_opt.quantization.spec.granularity import (
    PerTensorGranularity, PerChannelGranularity, PerBlockGranularity)
from coreai_opt.quantization.spec.qscheme import QuantizationScheme
from coreai_opt.palettization import KMeansPalettizerConfig, ModuleKMeansPalettizerConfig
from coreai_opt.palettization.config.palettization_config import (
    OpKMeansPalettizerConfig, PATSchedule, VectorKMeansConfig)
from coreai_opt.palettization.spec.spec import PalettizationSpec
from coreai_opt.palettization.spec.granularity import PerGroupedChannelGranularity
from coreai_opt.palettization.spec.training_strategy import DefaultTrainingSpec
from coreai_opt.pruning import MagnitudePrunerConfig, ModuleMagnitudePrunerConfig
from coreai_opt.pruning.config.magnitude_pruner_config import OpMagnitudePrunerConfig
from coreai_opt.pruning.spec.spec import PruningSpec
from coreai_opt.pruning.spec.scheme import Unstructured, ChannelStructured
"""

# Registry dicts written as the registered class (`{type: per_channel, axis: 0}` ->
# `PerChannelGranularity(axis=0)`).
REGISTERED = {
    "per_tensor": "PerTensorGranularity", "per_channel": "PerChannelGranularity",
    "per_block": "PerBlockGranularity", "per_grouped_channel": "PerGroupedChannelGranularity",
    "unstructured": "Unstructured", "channel_structured": "ChannelStructured",
}
REGISTRY_FIELDS = {"granularity", "pruning_scheme", "training_strategy_spec"}
MODEL_FIELDS = {"qat_schedule": "QATSchedule", "pat_schedule": "PATSchedule",
                "vector_kmeans_config": "VectorKMeansConfig"}
SPEC_TABLES = {"op_input_spec", "op_output_spec", "op_state_spec", "module_input_spec",
               "module_output_spec", "module_state_spec"}

# Values coreai-opt accepts that opscope does not evaluate: never an error on their own.
EXPRESSIONS = {
    "dtype": ["torch.int4", "torch.int8", "torch.uint8", "torch.float8_e4m3fn"],
    "qscheme": ["QuantizationScheme.SYMMETRIC", "QuantizationScheme.ASYMMETRIC"],
    "axis": ["AXIS"],
    "n_bits": ["N_BITS"],
}
PRELUDE = "AXIS = 0\nN_BITS = 4\n"

KNOWN_LIMITS = [
    ("two classes named PerTensorGranularity",
     "coreai-opt's quantization and palettization granularities each have a class named "
     "PerTensorGranularity; opscope reads the name written, not the import, so it takes either "
     "where a per-tensor granularity goes (a block moved from a quantization spec into a "
     "palettization spec keeps the quantizer's class)",
     lambda text, err, ours: not ours and "PerTensorGranularity(" in text
     and "Granularity [type=model_type" in err),
    ("a variable's value",
     "`global_config=module`: opscope checks the call bound to `module` where it is written, "
     "but does not follow the variable, so QuantizerConfig's own validator (no module-level "
     "specs in global_config) is not applied to it",
     lambda text, err, ours: not ours and "global_config=module" in text
     and "global_config cannot have" in err),
    ("an abstract class",
     "SparsityScheduleBase is abstract: `sparsity_schedule: {}` raises a TypeError; the schema "
     "dump says which fields a model has, not that it cannot be built (the YAML check shares it)",
     lambda text, err, ours: not ours and "abstract class SparsityScheduleBase" in err),
    ("a pattern that is no regular expression",
     "coreai-opt loads a config whose module_name_configs key is not a valid regex and raises "
     "only when prepare() matches names with it; opscope reports it as the user types",
     lambda text, err, ours: not err and ours and all(e["code"] == "invalid-regex"
                                                      for e in ours)),
    ("validators not ported",
     "as in the YAML test: QuantizerConfig._validate_kv_cache_quant_configs, KVCacheQuantConfig's "
     "own, and digit-key collisions (`0` and \"0\")",
     lambda text, err, ours: not ours and any(s in err for s in ("kv_cache", "Key collision"))),
    ("an expression decides a validator",
     "a value opscope does not evaluate (`torch.float8_e4m3fn`, `QuantizationScheme.ASYMMETRIC`) "
     "makes a model validator refuse a combination (an FP dtype with an asymmetric qscheme): "
     "opscope checks the other fields and leaves the combination unchecked rather than guess",
     lambda text, err, ours: not ours and ("torch." in text or "QuantizationScheme." in text)
     and any(s in err for s in ("requires symmetric", "requires zero-point", "scale_dtype",
                                "SYMMETRIC_WITH_CLIPPING", "lut_qspec"))),
]


def identifier(key) -> bool:
    return isinstance(key, str) and key.isidentifier() and key not in ("None", "True", "False")


class Writer:
    """A loaded config written as Python source; each mapping as a dict or as its class's call,
    chosen at random where coreai-opt takes either."""

    def __init__(self, rng: random.Random, compressor: str):
        self.rng = rng
        self.top, self.module, self.op, self.spec = CLASSES[compressor]

    def value(self, v, cls: str | None = None, field: str | None = None) -> str:
        if isinstance(v, dict):
            # (the palettizer's per_tensor class has the quantizer's name: written as a dict)
            if field in REGISTRY_FIELDS and isinstance(v.get("type"), str) and \
                    v["type"] in REGISTERED and \
                    not (v["type"] == "per_tensor" and self.spec != "QuantizationSpec") and \
                    self.rng.random() < 0.6:
                rest = {k: x for k, x in v.items() if k != "type"}
                if all(identifier(k) for k in rest):
                    return self.call(REGISTERED[v["type"]], rest)
            if cls and all(identifier(k) for k in v) and self.rng.random() < 0.7:
                return self.call(cls, v)
            return self.dict(v, field)
        if isinstance(v, list):
            items = ", ".join(self.value(x) for x in v)
            if self.rng.random() < 0.2:
                return f"({items},)" if len(v) == 1 else f"({items})"
            return f"[{items}]"
        if isinstance(v, str) and field in EXPRESSIONS and self.rng.random() < 0.15:
            return self.rng.choice(EXPRESSIONS[field])
        if isinstance(v, int) and not isinstance(v, bool) and field in EXPRESSIONS \
                and self.rng.random() < 0.1:
            return self.rng.choice(EXPRESSIONS[field])
        return repr(v)

    def child_class(self, field: str | None, key) -> str | None:
        """The class a value under `field` is an instance of (for the entry `key`)."""
        if field in ("global_config",):
            return self.module
        if field in ("module_name_configs", "module_type_configs"):
            return self.module
        if field in ("op_type_config", "op_name_config"):
            return self.op
        if field in SPEC_TABLES:
            return self.spec
        return None

    def field_class(self, key) -> str | None:
        if key == "global_config":
            return self.module
        if key == "lut_qspec":
            return "QuantizationSpec"
        if key == "training_strategy_spec":
            return None
        return MODEL_FIELDS.get(key)

    def dict(self, d: dict, field: str | None) -> str:
        parts = []
        for k, x in d.items():
            cls = self.child_class(field, k) if field in (
                "module_name_configs", "module_type_configs", "op_type_config",
                "op_name_config") or field in SPEC_TABLES else self.field_class(k)
            parts.append(f"{k!r}: {self.value(x, cls, None if cls and field else k)}")
        return "{" + ", ".join(parts) + "}"

    def call(self, cls: str, d: dict) -> str:
        parts = []
        for k, x in d.items():
            inner = self.field_class(k)
            if k in ("module_name_configs", "module_type_configs", "op_type_config",
                     "op_name_config") or k in SPEC_TABLES:
                text = self.value(x, None, k) if not isinstance(x, dict) else self.dict(x, k)
            else:
                text = self.value(x, inner, k)
            parts.append(f"{k}={text}")
        return f"{cls}(" + ", ".join(parts) + ")"


def program(doc: dict, compressor: str, rng: random.Random) -> str:
    """A Python file configuring `doc` (a from_yaml document) in one of the users' shapes."""
    writer = Writer(rng, compressor)
    prefix = ""
    specs = [v for p, v in yaml_differential.paths(doc)
             if len(p) >= 2 and p[-2] in SPEC_TABLES and isinstance(v, dict)
             and all(identifier(k) for k in v)]
    if specs and rng.random() < 0.25:  # a spec built on its own first (`w = QuantizationSpec(...)`)
        prefix = f"w = {writer.call(writer.spec, rng.choice(specs))}\n"
    return prefix + statements(doc, writer, rng)


def statements(doc: dict, writer: Writer, rng: random.Random) -> str:
    root_key = next(iter(doc)) if doc else None
    body = doc.get(root_key) if isinstance(doc, dict) and root_key else None
    style = rng.randrange(4)
    if style == 0 or not isinstance(body, dict) or len(doc) != 1 or \
            not all(identifier(k) for k in body):
        return f"config = {writer.top}.from_dict({writer.dict(doc, None)})\n"
    if style == 1 and isinstance(body.get("global_config"), dict) and \
            all(identifier(k) for k in body["global_config"]):
        rest = {k: v for k, v in body.items() if k != "global_config"}
        module = writer.call(writer.module, body["global_config"])
        top = writer.call(writer.top, rest)
        top = top[:-1] + (", " if rest else "") + "global_config=module)"
        return f"module = {module}\nconfig = {top}\n"
    if style == 2 and set(body) <= {"global_config", "module_name_configs"} and \
            isinstance(body.get("module_name_configs"), dict) and all(
                isinstance(v, dict) and all(identifier(k) for k in v)
                for v in body["module_name_configs"].values()):
        head = writer.call(writer.top, {k: v for k, v in body.items() if k == "global_config"})
        lines = [f"config = {head}"]
        for name, cfg in body["module_name_configs"].items():
            lines.append(f"config.set_module_name({name!r}, {writer.call(writer.module, cfg)})")
        return "\n".join(lines) + "\n"
    return f"config = {writer.call(writer.top, body)}\n"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--judge", required=True, help="the schema_judge binary")
    parser.add_argument("--per-compressor", type=int, default=400)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--show", type=int, default=8, help="disagreements printed per kind")
    args = parser.parse_args()
    import logging

    import yaml

    started = time.monotonic()
    warnings.simplefilter("ignore")
    logging.disable(logging.CRITICAL)
    rng = random.Random(args.seed)
    scope: dict = {}
    exec(IMPORTS, scope)  # noqa: S102 - the judge: coreai-opt itself

    def refuses(source: str) -> str:
        try:
            exec(PRELUDE + source, dict(scope))  # noqa: S102
            return ""
        except Exception as exc:  # noqa: BLE001 - any exception is a refusal
            kind = type(exc)
            return f"{kind.__module__}.{kind.__name__}: {exc}".replace("\n", " ")[:400]

    corpus: dict[str, list] = {c: [] for c in CLASSES}
    yaml_judge = yaml_differential.Judge()
    for text in yaml_differential.seeds():
        try:
            doc = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        except yaml.YAMLError:
            continue
        compressor = yaml_differential.compressor_of(doc)
        if compressor and not yaml_judge.refuses(text, compressor):
            corpus[compressor].append(doc)
    cases = []  # (compressor, source, kind)
    for compressor, docs in corpus.items():
        assert docs, f"no valid seed config for {compressor}"
        seen: set[str] = set()
        attempts = 0
        while sum(1 for c in cases if c[0] == compressor) < args.per_compressor:
            attempts += 1
            assert attempts < args.per_compressor * 20, "the generator keeps repeating itself"
            doc = rng.choice(docs)
            kind = "none"
            for _ in range(rng.choice((0, 1, 1, 1, 2))):
                try:
                    doc, kind = yaml_differential.mutate(doc, rng)
                except (KeyError, IndexError, TypeError):
                    pass
            if not isinstance(doc, dict):
                continue
            source = program(doc, compressor, rng)
            if source in seen:
                continue
            seen.add(source)
            cases.append((compressor, IMPORTS + PRELUDE + source, kind))

    with tempfile.TemporaryDirectory(prefix="opscope-differential-py-") as tmp:
        names = []
        for i, (_, source, _) in enumerate(cases):
            name = os.path.join(tmp, f"c{i:05d}.py")
            Path(name).write_text(source)
            names.append(name)
        out = subprocess.run([args.judge], input="\n".join(names) + "\n", capture_output=True,
                             text=True, check=True).stdout.splitlines()
    assert len(out) == len(cases), f"schema_judge answered {len(out)} of {len(cases)} configs"
    import json

    ours = [json.loads(line)["errors"] for line in out]
    failures = 0
    explained: dict[str, int] = {}
    for compressor in CLASSES:
        agree = total = refused = 0
        unexplained = []
        for (c, source, kind), errors in zip(cases, ours):
            if c != compressor:
                continue
            total += 1
            theirs = refuses(source[len(IMPORTS) + len(PRELUDE):])
            refused += bool(theirs)
            if bool(theirs) == bool(errors):
                agree += 1
                continue
            limit = next((n for n, _, test in KNOWN_LIMITS if test(source, theirs, errors)), None)
            if limit:
                explained[limit] = explained.get(limit, 0) + 1
            else:
                unexplained.append((kind, source, theirs, errors))
        print(f"{compressor}: {total} Python configs ({refused} refused by coreai-opt), agreement "
              f"{agree}/{total} = {100.0 * agree / total:.2f} %, unexplained disagreements: "
              f"{len(unexplained)}")
        for kind, source, theirs, errors in unexplained[: args.show]:
            print(f"--- [{kind}] coreai-opt: {theirs or 'accepts'}")
            print(f"    opscope: {[e['code'] + ' ' + e['message'] for e in errors] or 'no error'}")
            print("    " + source[len(IMPORTS):].replace("\n", "\n    ")[:1500])
        failures += len(unexplained)
    for name, _, _ in KNOWN_LIMITS:
        print(f"known limit '{name}': {explained.get(name, 0)} configs")
    print(f"elapsed {time.monotonic() - started:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
