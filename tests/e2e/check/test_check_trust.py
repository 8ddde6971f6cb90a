"""`opscope check` runs nothing a project names until the user trusts it (issue 14): a CI job
that checks a pull request's configs must not run the pull request's code.

The hostile repository (tests/hostile_repo.py) leaves a marker for each way it could run.
"""

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import coreai_versions as v050  # noqa: E402
import hostile_repo  # noqa: E402

PYTHON = sys.executable


def opscope(home, repo, *args):
    env = dict(os.environ, XDG_CACHE_HOME=str(home / "cache"), XDG_CONFIG_HOME=str(home / "config"))
    env.pop("VIRTUAL_ENV", None)
    return subprocess.run([os.environ["OPSCOPE_BIN"], *args], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture
def home(tmp_path):
    return tmp_path / "home"


@pytest.mark.parametrize("venv,interpreter", [(False, "tools/evil.sh"),
                                              (True, ".venv/bin/python")])
def test_check_runs_nothing_from_an_untrusted_project(tmp_path, home, venv, interpreter):
    repo = tmp_path / "repo"
    hostile_repo.make(repo, venv=venv)
    result = opscope(home, repo, "check", "configs/quant.yaml")
    assert result.returncode == 1, result.stdout + result.stderr
    first = result.stdout.splitlines()[0]
    assert first == (
        f"configs/quant.yaml:1:1: error: opscope.yaml names a Python model (model.py:build) that "
        f"opscope would run with {interpreter}; opscope runs a project's code only with your "
        f"consent: run `opscope trust {repo / 'opscope.yaml'}` (or pass --trust for this run) to "
        f"allow it [untrusted-project]"), result.stdout
    assert hostile_repo.markers(repo) == []



def test_explain_runs_nothing_from_an_untrusted_project(tmp_path, home):
    repo = tmp_path / "repo"
    hostile_repo.make(repo)
    result = opscope(home, repo, "explain", "configs/quant.yaml")
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout == ""
    assert (f"opscope runs a project's code only with your consent: run `opscope trust "
            f"{repo / 'opscope.yaml'}` (or pass --trust for this run)") in result.stderr
    assert hostile_repo.markers(repo) == []

def test_a_config_naming_its_own_model_asks_for_trust_it_can_be_given(tmp_path, home):
    # A PEFT adapter_config.json names its base model and the repository's .venv would build it:
    # there is no opscope.yaml `opscope trust` could record, so the way out is --trust (or the
    # user's own activated environment), never `opscope trust ` with nothing after it.
    repo = tmp_path / "repo"
    hostile_repo.make(repo, venv=True, project=False)
    (repo / "base").mkdir()
    (repo / "base" / "config.json").write_text(json.dumps(
        {"architectures": ["LlamaForCausalLM"], "model_type": "llama"}))
    (repo / "adapter_config.json").write_text(json.dumps(
        {"peft_type": "LORA", "base_model_name_or_path": "./base", "r": 8,
         "target_modules": ["q_proj"]}))
    result = opscope(home, repo, "check", "adapter_config.json")
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout.splitlines()[0] == (
        "adapter_config.json:1:1: error: adapter_config.json names a Hugging Face model "
        "(hf:./base) that opscope would build with the repository's .venv/bin/python; opscope "
        "runs a project's code only with your consent: pass --trust to allow it for this run, or "
        "activate that environment yourself (an activated $VIRTUAL_ENV needs no consent) "
        "[untrusted-project]"), result.stdout
    assert hostile_repo.markers(repo) == []


def test_trust_records_consent_for_the_exact_content(tmp_path, home):
    repo = tmp_path / "repo"
    hostile_repo.make(repo)
    trusted = opscope(home, repo / "configs", "trust")  # the nearest opscope.yaml above
    assert trusted.returncode == 0, trusted.stderr
    assert f"trusting {repo / 'opscope.yaml'}" in trusted.stdout
    assert "model:       model.py:build" in trusted.stdout
    assert "interpreter: tools/evil.sh" in trusted.stdout
    assert "inputs:      1x8" in trusted.stdout
    store = home / "config" / "opscope" / "trusted.json"
    assert stat.S_IMODE(store.stat().st_mode) == 0o600
    entry = json.loads(store.read_text())["trusted"][str(repo / "opscope.yaml")]
    assert entry["runs"] == "model.py:build with tools/evil.sh, inputs 1x8"

    listed = opscope(home, repo, "trust", "--list")
    assert str(repo / "opscope.yaml") in listed.stdout and "[changed" not in listed.stdout
    (repo / "opscope.yaml").write_text("model: model.py:build\npython: tools/evil.sh\n")
    listed = opscope(home, repo, "trust", "--list")
    assert "[changed: not trusted]" in listed.stdout
    check = opscope(home, repo, "check", "configs/quant.yaml")
    assert "[untrusted-project]" in check.stdout
    assert hostile_repo.markers(repo) == []

    revoked = opscope(home, repo, "trust", "--revoke", str(repo))
    assert revoked.returncode == 0 and "no longer trusted" in revoked.stdout
    assert str(repo / "opscope.yaml") not in json.loads(store.read_text())["trusted"]


def test_trust_usage_errors(tmp_path, home):
    repo = tmp_path / "repo"
    repo.mkdir()
    missing = opscope(home, repo, "trust")
    assert missing.returncode == 1 and "no opscope.yaml in" in missing.stderr
    other = repo / "other.yaml"
    other.write_text("model: m.py:f\n")
    wrong = opscope(home, repo, "trust", str(other))
    assert wrong.returncode == 1 and "is not an opscope.yaml" in wrong.stderr


@pytest.fixture
def real_repo(tmp_path):
    worker = os.environ.get("OPSCOPE_INSPECT", "")
    if not Path(worker).is_file():  # a missing worker fails: a skip would test nothing
        pytest.fail(f"opscope-inspect not found at {worker!r} (OPSCOPE_INSPECT): build it first")
    repo = tmp_path / "repo"
    hostile_repo.make(repo, real_python=PYTHON)
    return repo


def test_trusted_project_runs_and_trust_flag_is_for_one_run(real_repo, home):
    repo = real_repo
    once = opscope(home, repo, "check", "--trust", "configs/quant.yaml")
    assert "[untrusted-project]" not in once.stdout, once.stdout + once.stderr
    assert "`layer9.*` matches no module" in once.stdout, once.stdout + once.stderr
    assert hostile_repo.markers(repo) == ["pwned-by-python-setting", "pwned-by-import"]
    assert not (home / "config" / "opscope" / "trusted.json").exists()  # nothing recorded

    assert opscope(home, repo, "trust", str(repo / "opscope.yaml")).returncode == 0
    again = opscope(home, repo, "check", "configs/quant.yaml")
    assert "`layer9.*` matches no module" in again.stdout, again.stdout + again.stderr



def test_explain_with_trust_explains_the_projects_model(real_repo, home):
    result = opscope(home, real_repo, "explain", "--trust", "configs/quant.yaml")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ops configured by the Quantizer" in result.stdout

def test_a_target_typed_on_the_command_line_is_the_users_choice(real_repo, home):
    repo = real_repo
    (repo / "opscope.yaml").write_text("mode: graph\n")  # names no model
    result = opscope(home, repo, "check", "--model", "model.py:build", "--input", "1x8",
                     "--python", PYTHON, "configs/quant.yaml")
    assert "`layer9.*` matches no module" in result.stdout, result.stdout + result.stderr
    # The target ran (the user named it), with the user's interpreter, not the repository's.
    assert hostile_repo.markers(repo) == ["pwned-by-import"]


def test_check_uses_the_venvs_coreai_opt_schema_once_trusted(tmp_path, home):
    """A venv with another coreai-opt version (a fake 0.5.0, tests/coreai_versions.py): its
    schema is dumped by the project's interpreter only with consent, then checks the config."""
    repo = tmp_path / "repo"
    v050.make(repo)

    def schema_lines(result):
        return sorted(line for line in result.stdout.splitlines() if "[schema-" in line)

    untrusted = opscope(home, repo, "check", "configs/quant.yaml")
    assert not v050.dumped(repo)
    (ignored,) = schema_lines(untrusted)  # 0.4.0: the new key is dropped, the old value taken
    assert ignored.startswith("configs/quant.yaml:6:9: warning: `rounding_mode` is not a field "
                              "of a QuantizationSpec: coreai-opt ignores it silently"), ignored

    trusted = opscope(home, repo, "check", "--trust", "configs/quant.yaml")
    assert v050.dumped(repo), trusted.stderr
    lines = schema_lines(trusted)
    assert len(lines) == 1 and lines[0].startswith("configs/quant.yaml:5:18: error: "), lines
    assert "symmetric_with_clipping" in lines[0] and lines[0].endswith("[schema-value]"), lines
    cache = home / "cache" / "opscope" / "schema" / f"coreai-opt-{v050.VERSION}.json"
    assert json.loads(cache.read_text())["coreai_opt"] == v050.VERSION
