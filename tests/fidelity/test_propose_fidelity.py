"""`opscope propose` (issue 28) against coreai-opt's own bits_per_weight() and fake quantization.

For the ResNet-18-shaped fixture, a tiny Llama and GPT-2 (transformers, random weights), each
also with a heavy-tailed init (propose_models.py), exported with their weights by `opscope
export`: an eager Quantizer config (int8 per channel on the Linear / Conv / Embedding weights)
is proposed at three budgets between the smallest and the int8 uniform config's bits per
weight, as coreai-opt measures them. The proposed config, loaded by coreai-opt 0.4.0
(QuantizerConfig.from_dict) and applied with prepare(), must have
  - bits_per_weight() <= the budget, and
  - a total weight error (sum over the compressed tensors of |w - fq(w)|^2, fq(w) the weight
    prepare()'s parametrization returns) <= that of the best uniform config (one of propose's
    choices on every such weight) whose bits_per_weight() fits the same budget.
GPT-2's attention and MLP weights are transformers' Conv1D, which the Quantizer does not
compress: only its tied embedding and head are chosen, so its budgets are near 30 bits.
Prints each case's budget, bits per weight and errors, and the times."""

from __future__ import annotations

import contextlib
import copy
import io
import json
import logging
import subprocess
import time

import pytest
import yaml

from conftest import build_fixture_model, get_fixture

CONV = "torch.nn.modules.conv.Conv2d"
LINEAR = "torch.nn.modules.linear.Linear"
EMBEDDING = "torch.nn.modules.sparse.Embedding"
TYPES = {"resnet18": [CONV, LINEAR], "hf_llama": [LINEAR, EMBEDDING],
         "hf_gpt2": [LINEAR, EMBEDDING]}
HEAVY = {"resnet18": "propose_models:resnet18_heavy", "hf_llama": "propose_models:llama_heavy",
         "hf_gpt2": "propose_models:gpt2_heavy"}


def per_block(size: int) -> dict:
    return {"dtype": "int4", "granularity": {"type": "per_block", "block_size": size}}


# propose's choices (server/cli/src/propose_command.cpp), each as a uniform config.
UNIFORM = {
    "int8 per channel": {"dtype": "int8", "granularity": {"type": "per_channel"}},
    "int4 per channel": {"dtype": "int4", "granularity": {"type": "per_channel"}},
    "int4 per block 32": per_block(32),
    "int4 per block 64": per_block(64),
    "int4 per block 128": per_block(128),
}
FRACTIONS = (0.15, 0.5, 0.9)  # budgets between the smallest uniform and int8 per channel
SUMMARY = {"cases": 0, "propose_s": 0.0, "prepare_s": 0.0, "export_s": 0.0}


def config_for(name: str, weight: dict) -> dict:
    entry = {"op_input_spec": None, "op_output_spec": None, "op_state_spec": {"weight": weight}}
    return {"quantization_config": {"execution_mode": "eager", "global_config": None,
                                    "module_type_configs": {t: copy.deepcopy(entry)
                                                            for t in TYPES[name]}}}


def export(target: str, fixture, path: str) -> None:
    from opscope_export.cli import main as helper_main

    args = [target, "--seed", str(fixture.seed), "--mode", "graph", "--mode", "eager",
            "--with-weights", "-o", path]
    for spec in fixture.inputs:
        args += ["--input", spec]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = helper_main(args)
    assert code == 0, err.getvalue()


def coreai_measure(target: str, fixture, config: dict) -> tuple[float, float]:
    """(bits_per_weight(), total squared weight error) after coreai-opt's eager prepare()."""
    import torch
    from torch.nn.utils import parametrize

    from coreai_opt.inspection import bits_per_weight
    from coreai_opt.inspection._bpw_utils import get_weight_compressor
    from coreai_opt.quantization import Quantizer, QuantizerConfig
    from oracle.inspector import build_target

    model, args = build_target(target, fixture.inputs, fixture.seed)
    logging.disable(logging.WARNING)
    try:
        prepared = Quantizer(model, QuantizerConfig.from_dict(copy.deepcopy(config))).prepare(args)
    finally:
        logging.disable(logging.NOTSET)
    error, seen = 0.0, set()
    with torch.no_grad():
        for _, module in prepared.named_modules():
            if not parametrize.is_parametrized(module):
                continue
            for tensor_name, chain in module.parametrizations.items():
                if get_weight_compressor(chain) is None or id(chain.original) in seen:
                    continue
                seen.add(id(chain.original))  # a tied tensor: compressed and counted once
                original = chain.original.detach().to(torch.float64)
                quantized = getattr(module, tensor_name).detach().to(torch.float64)
                error += (original - quantized).square().sum().item()
    return bits_per_weight(prepared).bpw, error


def propose(opscope_bin: str, config: dict, archive: str, budget: float, tmp_path) -> dict:
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    proc = subprocess.run([opscope_bin, "propose", str(path), "--model", archive,
                           "--bits-per-weight", f"{budget:.6f}", "--write", "--quiet"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"--- {path}\n"), proc.stdout[:400]
    return yaml.safe_load(path.read_text())


@pytest.mark.parametrize("init", ["random", "heavy-tailed"])
@pytest.mark.parametrize("name", ["resnet18", "hf_llama", "hf_gpt2"])
def test_proposal_fits_and_beats_every_uniform_config(name, init, opscope_bin, tmp_path,
                                                      coreai_opt):
    fixture = get_fixture(name)
    target = fixture.target if init == "random" else HEAVY[name]
    archive = str(tmp_path / f"{name}.pt2")
    started = time.monotonic()
    export(target, fixture, archive)
    SUMMARY["export_s"] += time.monotonic() - started

    started = time.monotonic()
    uniform = {label: coreai_measure(target, fixture, config_for(name, spec))
               for label, spec in UNIFORM.items()}
    SUMMARY["prepare_s"] += time.monotonic() - started
    smallest = min(bpw for bpw, _ in uniform.values())
    int8 = uniform["int8 per channel"][0]
    failures = []
    for fraction in FRACTIONS:
        budget = round(smallest + fraction * (int8 - smallest), 6)  # as the command line gets it
        started = time.monotonic()
        proposed = propose(opscope_bin, config_for(name, UNIFORM["int8 per channel"]), archive,
                           budget, tmp_path)
        SUMMARY["propose_s"] += time.monotonic() - started
        started = time.monotonic()
        bpw, error = coreai_measure(target, fixture, proposed)
        SUMMARY["prepare_s"] += time.monotonic() - started
        SUMMARY["cases"] += 1
        fitting = {label: e for label, (b, e) in uniform.items() if b <= budget}
        best = min(fitting.items(), key=lambda item: item[1]) if fitting else None
        print(f"\n{name} {init} budget {budget:.4f}: proposed {bpw:.4f} bpw, error {error:.6g}; "
              + (f"best uniform {best[0]} {uniform[best[0]][0]:.4f} bpw, error {best[1]:.6g}"
                 if best else "no uniform config fits"))
        if bpw > budget:
            failures.append(f"{name} {init}: bits_per_weight() {bpw:.6f} > budget {budget:.6f}")
        if best and error > best[1] * (1 + 1e-9):
            failures.append(f"{name} {init} budget {budget:.4f}: error {error:.6g} > best "
                            f"uniform ({best[0]}) {best[1]:.6g}")
    print(f"\npropose judge after {name} {init}: {SUMMARY['cases']} budgets, propose "
          f"{SUMMARY['propose_s']:.1f} s, prepare {SUMMARY['prepare_s']:.1f} s, export "
          f"{SUMMARY['export_s']:.1f} s")
    assert not failures, "\n".join(failures)


def test_size_budget_and_bad_budgets(opscope_bin, tmp_path, coreai_opt):
    """--size is the same budget in bytes: the same proposal as the bits per weight it comes to.
    Below the smallest reachable and at full precision: exit 1, one line naming the file
    and what to ask for; the config is left as it was."""
    fixture = get_fixture("resnet18")
    archive = str(tmp_path / "resnet18.pt2")
    export(fixture.target, fixture, archive)
    path = tmp_path / "config.yaml"
    text = yaml.safe_dump(config_for("resnet18", UNIFORM["int8 per channel"]), sort_keys=False)
    path.write_text(text)

    def run(*budget):
        return subprocess.run([opscope_bin, "propose", str(path), "--model", archive, *budget,
                               "--quiet"], capture_output=True, text=True, timeout=300)

    by_bits = run("--bits-per-weight", "6")
    assert by_bits.returncode == 0, by_bits.stderr
    weights = sum(p.numel() for p in [*build_fixture_model("resnet18")[0].parameters(),
                                      *build_fixture_model("resnet18")[0].buffers()])
    by_size = run("--size", f"{6 * weights / 8}B")
    assert by_size.returncode == 0, by_size.stderr
    diff = lambda out: out.split("\nproposed: ")[0]  # noqa: E731
    assert diff(by_size.stdout) == diff(by_bits.stdout) and "+  module_name_configs:" in diff(
        by_bits.stdout), by_size.stdout
    for budget, says in (("1", "is below the smallest this config reaches"),
                         ("64", "is at or above the model in full precision")):
        proc = subprocess.run([opscope_bin, "propose", str(path), "--model", archive,
                               "--bits-per-weight", budget, "--write", "--quiet"],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 1, proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and str(path) in lines[0] and says in lines[0], proc.stderr
        assert proc.stdout == ""
        assert path.read_text() == text
