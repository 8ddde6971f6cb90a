"""Per-layer weight error (issue 28) read from a Hugging Face checkpoint's .safetensors.

A tiny Llama built with transformers (random weights, float32 and bfloat16) is saved with
save_pretrained(safe_serialization=True) into a private Hugging Face cache laid out as the
hub's, and exported with its weights to a .pt2 archive. `opscope explain --json` measures every
weight the configs quantize (int8 per channel; int4 per block of 32 with int8 per tensor
asymmetric on the second layer) three ways: from the archive, from `hf:ORG/NAME` (the cached
snapshot's model.safetensors), and from a project whose `weights:` names the checkpoint file
beside a config-only model. The same parameters must be measured with the same SQNR, within
0.01 dB (the worker reads the same bytes, so they agree to the last bit).

A weight wider than the worker's slab (an 8192 x 1024 linear, measured a slab of rows at a time
from the file's mapped pages) is held to coreai-opt's own prepare(), as
test_weight_error_fidelity.py does, from its archive and its safetensors alike. A damaged or
foreign checkpoint is refused with a message naming the file or the tensor."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from test_weight_error_fidelity import EXPLICIT_AXES, TOLERANCE_DB, coreai_errors, prepare_with_names

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))

from fixtures.hf_hub import TINY_LLAMA, write_hub_config  # noqa: E402

MODEL_IDS = {"float32": "opscope-test/tiny-llama", "bfloat16": "opscope-test/tiny-llama-bf16"}


def run_explain(opscope_bin: str, root: Path, config: dict, *model: str,
                cwd: Path | None = None) -> dict:
    """`opscope explain --json`'s weight_error, with the test's own caches (--trust: a
    project's hf: model is exported by the helper only with consent)."""
    path = root / "config.json"
    path.write_text(json.dumps(config))
    env = dict(os.environ, HF_HOME=str(root / "hf"), XDG_CACHE_HOME=str(root / "cache"),
               XDG_CONFIG_HOME=str(root / "config"), VIRTUAL_ENV=sys.prefix)
    env.pop("HF_HUB_CACHE", None)
    proc = subprocess.run([os.environ["OPSCOPE_BIN"], "explain", str(path), *model, "--json",
                           "--quiet", "--trust"], capture_output=True, text=True, timeout=600, env=env,
                          cwd=cwd or root)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["weight_error"]


def sqnr_by_parameter(report: dict) -> dict:
    assert "unavailable" not in report, report
    missing = [row for row in report["parameters"] if "sqnr_db" not in row]
    assert not missing, f"not every weight was measured: {missing[:3]}"
    return {row["parameter"]: row["sqnr_db"] for row in report["parameters"]}


def assert_same(case: str, expected: dict, actual: dict) -> float:
    assert set(actual) == set(expected), (
        f"{case}: {sorted(set(actual) ^ set(expected))} measured on one side only")
    largest = 0.0
    for parameter, db in expected.items():
        got = actual[parameter]
        assert (db is None) == (got is None), f"{case}: {parameter}: {got} vs {db}"
        if db is not None:
            largest = max(largest, abs(got - db))
            assert abs(got - db) <= TOLERANCE_DB, f"{case}: {parameter}: {got} vs {db} dB"
    return largest


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """The private cache holding both tiny Llamas' checkpoints, and each one's archive."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    root = tmp_path_factory.mktemp("safetensors")
    archives = {}
    for dtype, model_id in MODEL_IDS.items():
        write_hub_config(root / "hf", model_id, TINY_LLAMA)
        torch.manual_seed(28)
        model = LlamaForCausalLM(LlamaConfig(**TINY_LLAMA, use_cache=False))
        model = model.to(getattr(torch, dtype)).eval()
        snapshot = next((root / "hf" / "hub" / ("models--" + model_id.replace("/", "--")) /
                         "snapshots").iterdir())
        model.save_pretrained(snapshot, safe_serialization=True)
        archive = root / f"tiny-llama-{dtype}.pt2"
        ids = torch.randint(0, TINY_LLAMA["vocab_size"], (1, 8))
        torch.export.save(torch.export.export(model, (ids,)), archive)
        archives[dtype] = archive
    return root, archives


@pytest.mark.parametrize("dtype", list(MODEL_IDS))
def test_a_cached_checkpoint_measures_as_its_archive(dtype, hub, opscope_bin):
    root, archives = hub
    largest, compared = 0.0, 0
    for label, config in EXPLICIT_AXES.items():
        from_archive = sqnr_by_parameter(
            run_explain(opscope_bin, root, config, "--model", str(archives[dtype])))
        from_cache = sqnr_by_parameter(
            run_explain(opscope_bin, root, config, "--model", "hf:" + MODEL_IDS[dtype]))
        largest = max(largest, assert_same(f"{dtype} {label}", from_archive, from_cache))
        compared += len(from_archive)
    print(f"\nsafetensors judge ({dtype}): {compared} weights, archive vs hf cache, max |dB "
          f"difference| {largest:.2e}")


def test_weights_key_names_a_checkpoint_file(hub, opscope_bin):
    """A config-only model folder (nothing beside its config.json) and `weights:` naming the
    checkpoint's file, relative to the project."""
    root, archives = hub
    project = root / "project"
    (project / "llama").mkdir(parents=True)
    (project / "llama" / "config.json").write_text(json.dumps(TINY_LLAMA))
    snapshot = next((root / "hf" / "hub" / "models--opscope-test--tiny-llama" /
                     "snapshots").iterdir())
    (project / "opscope.yaml").write_text(
        f"model: hf:llama\nweights: {os.path.relpath(snapshot / 'model.safetensors', project)}\n")
    config = EXPLICIT_AXES["int8-per-channel"]
    from_archive = sqnr_by_parameter(
        run_explain(opscope_bin, root, config, "--model", str(archives["float32"])))
    # run_explain writes the config into the project, so its opscope.yaml is the one found.
    from_key = sqnr_by_parameter(run_explain(opscope_bin, project, config, cwd=project))
    assert_same("weights: file", from_archive, from_key)

    # Without `weights:` the folder beside config.json has no checkpoint: explain says where
    # it looked and what to write.
    (project / "opscope.yaml").write_text("model: hf:llama\n")
    report = run_explain(opscope_bin, project, config, cwd=project)
    assert "no .safetensors file here" in report["unavailable"], report
    assert str(project / "llama") in report["unavailable"], report
    assert "`weights:`" in report["unavailable"], report


def test_a_damaged_or_foreign_checkpoint_is_refused_by_name(hub, opscope_bin, tmp_path):
    import torch
    from safetensors.torch import save_file

    root, _ = hub
    config = EXPLICIT_AXES["int8-per-channel"]
    project = tmp_path / "project"
    project.mkdir()
    snapshot = next((root / "hf" / "hub" / "models--opscope-test--tiny-llama" /
                     "snapshots").iterdir())
    # Truncated, as a partial download leaves it.
    truncated = project / "truncated.safetensors"
    truncated.write_bytes((snapshot / "model.safetensors").read_bytes()[:5000])
    (project / "opscope.yaml").write_text(
        f"model: hf:{snapshot}\nweights: truncated.safetensors\n")
    report = run_explain(opscope_bin, project, config, cwd=project)
    assert str(truncated) in report["unavailable"], report
    assert "truncated" in report["unavailable"] and "re-save" in report["unavailable"], report

    # Another model's weights under the same names: every weight refused, none measured.
    foreign = {name: torch.zeros(3, 5) for name in
               ["model.layers.0.self_attn.q_proj.weight", "lm_head.weight"]}
    save_file(foreign, str(project / "foreign.safetensors"))
    (project / "opscope.yaml").write_text(
        f"model: hf:{snapshot}\nweights: foreign.safetensors\n")
    rows = run_explain(opscope_bin, project, config, cwd=project)["parameters"]
    q_proj = next(r for r in rows if r["parameter"] == "model.layers.0.self_attn.q_proj.weight")
    assert "not this model's" in q_proj["not_measured"], q_proj
    assert all("sqnr_db" not in r for r in rows), rows[:3]
    other = next(r for r in rows if r["parameter"] == "model.layers.1.mlp.up_proj.weight")
    assert "is not in the checkpoint" in other["not_measured"], other


def test_a_weight_wider_than_a_slab_is_coreai_opts(opscope_bin, tmp_path, coreai_opt):
    """8192 x 1024 (8 M elements, two slabs): from its archive and its safetensors, within
    0.01 dB of the fake-quantized weight coreai-opt's prepare() makes."""
    import torch
    from safetensors.torch import save_file

    torch.manual_seed(28)
    model = torch.nn.Sequential(torch.nn.Linear(1024, 8192)).eval()
    args = (torch.randn(2, 1024),)
    # Two folders: a project's `weights:` would apply to a --model given beside it too.
    plain, project = tmp_path / "plain", tmp_path / "project"
    plain.mkdir()
    project.mkdir()
    archive = plain / "wide.pt2"
    torch.export.save(torch.export.export(model, args), archive)
    save_file(dict(model.state_dict()), str(project / "wide.safetensors"))
    (project / "opscope.yaml").write_text(f"model: {archive}\nweights: wide.safetensors\n")
    for label, config in EXPLICIT_AXES.items():
        prepared, first_name, by_name = prepare_with_names(copy.deepcopy(model), args, config)
        expected = coreai_errors(prepared, args, first_name, by_name)
        assert expected, "prepare() fake-quantized no weight"
        from_archive = sqnr_by_parameter(
            run_explain(opscope_bin, plain, config, "--model", str(archive)))
        from_file = sqnr_by_parameter(run_explain(opscope_bin, project, config, cwd=project))
        assert_same(f"wide {label}: archive", expected, from_archive)
        assert_same(f"wide {label}: safetensors", expected, from_file)
