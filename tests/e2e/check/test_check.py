"""`opscope check` on a real archive: the issue's scenario, run by ctest.

A small ResNet-shaped model is exported with torch.export at test time; configs
next to an opscope.yaml are checked with the real binary and worker.
"""

import json
import os
import re
import subprocess
import textwrap
from pathlib import Path

import pytest
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1)
        self.relu = nn.ReLU()

    def forward(self, x):
        return self.relu(self.conv1(x)) + x


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.layer1 = nn.Sequential(Block(8), Block(8))
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        x = self.layer1(self.conv1(x))
        return self.fc(x.mean(dim=(2, 3)))


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("project")
    ep = torch.export.export(Net().eval(), (torch.randn(1, 3, 8, 8),))
    torch.export.save(ep, str(root / "net.pt2"))
    (root / "opscope.yaml").write_text("model: net.pt2  # relative to this file\n")
    (root / "configs").mkdir()
    return root


def run_check(project, *args):
    # Consent is read from the test's own config folder, never the user's.
    env = dict(os.environ, XDG_CACHE_HOME=str(project / "cache"),
               XDG_CONFIG_HOME=str(project / "config"))
    return subprocess.run(
        [os.environ["OPSCOPE_BIN"], "check", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def write(project, name, text):
    path = project / "configs" / name
    path.write_text(textwrap.dedent(text))
    return f"configs/{name}"


def test_no_match_warning_and_bad_regex_error(project):
    config = write(
        project,
        "quant.yaml",
        """\
        quantization_config:
          module_name_configs:
            layer1\\..*: null
            layer9.*: null
            "layer1.(": null
        """,
    )
    result = run_check(project, config)
    lines = result.stdout.splitlines()
    assert result.returncode == 1, result.stdout + result.stderr
    assert len(lines) == 2, result.stdout + result.stderr
    assert lines[0].startswith(f"{config}:4:5: warning: `layer9.*` matches no module")
    assert "did you mean `layer1.*`" in lines[0]
    # The error points at the unbalanced parenthesis: column 13 of `    "layer1.(": null`.
    assert lines[1].startswith(f"{config}:5:13: error: invalid regular expression: missing )")


def test_clean_config_passes_and_strict_fails_on_warnings(project):
    clean = write(
        project,
        "clean.yaml",
        """\
        quantization_config:
          global_config:
            op_type_config:
              linear: null
          module_type_configs:
            torch.nn.modules.conv.Conv2d: null
          module_name_configs:
            fc: null
        """,
    )
    result = run_check(project, clean)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""
    # A CI log shows what passed; --quiet keeps it silent.
    assert result.stderr.endswith("1 config checked: no errors or warnings\n"), result.stderr
    assert run_check(project, clean, "--quiet").stderr == ""

    warned = write(
        project,
        "warned.json",
        '{"quantization_config": {"global_config": {"op_type_config": {"softmax": null}}}}',
    )
    assert run_check(project, warned).returncode == 0
    strict = run_check(project, warned, "--strict")
    assert strict.returncode == 1
    assert "no op of type `softmax`" in strict.stdout
    assert "`conv2d`" in strict.stdout and "`linear`" in strict.stdout


def test_an_entry_other_entries_override_is_a_warning_naming_them(project):
    # coreai-opt's resolution (issue 10): the later parent key claims the specific key's conv,
    # and a key on the relu configures nothing (the relu is in the conv's pattern).
    config = write(
        project,
        "overridden.yaml",
        """\
        quantization_config:
          module_name_configs:
            layer1\\.0\\.conv1: null
            layer1\\.0\\.relu: null
            layer1: null
        """,
    )
    result = run_check(project, config)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 2, result.stdout
    assert lines[0].startswith("configs/overridden.yaml:3:5: warning: `layer1\\.0\\.conv1` "
                               "decides none"), lines[0]
    assert "`layer1` (line 5)" in lines[0] and lines[0].endswith("[overridden]"), lines[0]
    assert lines[1].startswith("configs/overridden.yaml:4:5: warning: `layer1\\.0\\.relu` "
                               "decides none"), lines[1]
    assert run_check(project, config, "--strict").returncode == 1


def test_module_type_must_be_fully_qualified(project):
    config = write(
        project,
        "types.yaml",
        "quantization_config:\n  module_type_configs:\n    Conv2d: null\n",
    )
    result = run_check(project, config)
    assert result.returncode == 1
    assert "use `torch.nn.modules.conv.Conv2d`" in result.stdout


def test_explicit_model_and_missing_model(project, tmp_path):
    config = tmp_path / "alone.yaml"
    config.write_text("quantization_config:\n  module_name_configs:\n    fc: null\n")
    missing = run_check(project, str(config))
    assert missing.returncode == 1
    assert "no model to check names against" in missing.stdout
    explicit = run_check(project, str(config), "--model", str(project / "net.pt2"))
    assert explicit.returncode == 0, explicit.stdout + explicit.stderr

    broken = run_check(project, str(config), "--model", str(tmp_path / "nope.pt2"))
    assert broken.returncode == 1
    assert "cannot load the model" in broken.stdout


def test_unreadable_config_and_usage(project):
    result = run_check(project, "configs/does-not-exist.yaml")
    assert result.returncode == 1
    assert "does-not-exist.yaml: cannot read" in result.stderr
    assert run_check(project).returncode == 2


def run_explain(project, *args):
    env = dict(os.environ, XDG_CACHE_HOME=str(project / "cache"),
               XDG_CONFIG_HOME=str(project / "config"))
    return subprocess.run([os.environ["OPSCOPE_BIN"], "explain", *args], cwd=project, env=env,
                          capture_output=True, text=True, timeout=300)


def test_explain_finds_the_model_as_check_does(project, tmp_path):
    config = write(
        project,
        "explained.yaml",
        """\
        quantization_config:
          module_name_configs:
            'layer1\\.0\\.conv1': null
            layer1: {}
        """,
    )
    from_project = run_explain(project, config, "--json")
    assert from_project.returncode == 0, from_project.stderr
    explicit = run_explain(project, config, "--json", "--model", str(project / "net.pt2"))
    assert explicit.returncode == 0, explicit.stderr
    assert from_project.stdout == explicit.stdout
    ops = {o["op_name"]: o for o in json.loads(from_project.stdout)["ops"]}
    # The later parent key takes layer1.0.conv1 from the specific key above it.
    assert ops["conv2d_1"]["module"] == "layer1.0.conv1"
    assert ops["conv2d_1"]["entry"]["path"][-1] == "layer1"

    alone = tmp_path / "alone.yaml"
    alone.write_text("quantization_config:\n  module_name_configs:\n    fc: null\n")
    missing = run_explain(project, str(alone))
    assert missing.returncode == 1
    assert "no model to check names against" in missing.stderr


def test_explain_follows_the_configs_mode_and_says_so(project):
    config = write(project, "graph.yaml", "quantization_config:\n  module_name_configs:\n    fc: null\n")
    result = run_explain(project, config, "--mode", "eager")
    assert result.returncode == 2
    assert "runs in graph mode in coreai-opt" in result.stderr
    assert "drop --mode" in result.stderr


def test_explain_colours_its_table_only_when_asked_or_on_a_terminal(project):
    config = write(project, "colour.yaml",
                   "quantization_config:\n  module_name_configs:\n    fc: null\n    layer1: {}\n")
    plain = run_explain(project, config)  # a pipe: no colour
    assert plain.returncode == 0, plain.stderr
    assert "\x1b[" not in plain.stdout
    coloured = run_explain(project, config, "--color")
    assert "\x1b[32m" in coloured.stdout  # the deciding entries
    assert "\x1b[33mfp\x1b[0m" in coloured.stdout  # fc, left in full precision
    # The same table once the colour is taken out: the columns line up either way.
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured.stdout) == plain.stdout


def test_explain_refuses_a_config_coreai_opt_refuses(project):
    config = write(
        project,
        "refused.yaml",
        """\
        quantization_config:
          global_config:
            op_state_spec:
              weight: {dtype: int9}
        """,
    )
    result = run_explain(project, config)
    assert result.returncode == 1
    assert result.stdout == ""  # no table for a config that configures nothing
    assert f"{config}:4:" in result.stderr and "int9" in result.stderr
    assert "coreai-opt refuses this config" in result.stderr


def test_explain_names_the_root_keys_coreai_opt_loads(project):
    # A config under a misremembered root key: what to write instead, in coreai-opt's words.
    config = write(project, "rootless.yaml", "palettization_config:\n  global_config: {}\n")
    result = run_explain(project, config)
    assert result.returncode == 1
    assert "rootless.yaml: not a coreai-opt config" in result.stderr
    for root in ("quantization_config", "kmeans_palettization_config", "magnitude_pruning_config"):
        assert root in result.stderr


def test_a_file_that_is_no_config_fails_the_check_instead_of_passing(project):
    # A wrong path in CI (a compose file, a misremembered root key) must not pass as clean.
    misremembered = write(project, "pal.yaml", "palettization_config:\n  global_config: {}\n")
    result = run_check(project, misremembered)
    assert result.returncode == 1
    assert f"{misremembered}:1:1: error: unknown field `palettization_config`" in result.stdout
    assert "did you mean `kmeans_palettization_config`?" in result.stdout

    other = write(project, "compose.yaml", "services:\n  web: {image: x}\n")
    result = run_check(project, other)
    assert result.returncode == 1
    assert f"{other}: not a coreai-opt config" in result.stderr
    assert "quantization_config" in result.stderr
    assert run_check(project, other, "--only-configs").returncode == 0
    # The project file beside the configs (`opscope check configs/*.yaml`) is no config either,
    # and passes.
    assert run_check(project, "opscope.yaml").returncode == 0


def test_a_config_whose_root_line_was_deleted_fails_as_coreai_opt_fails(project):
    # Issue 22, item 3: with `quantization_config:` deleted, its entries fall under the
    # `quantization_spec:` block of anchors above; coreai-opt's from_dict raises "Did not find
    # 'quantization_config'", so check must fail there too, not pass the file.
    text = textwrap.dedent("""\
        quantization_spec:
          int8_weight: &int8_weight
            dtype: int8
            granularity: { type: per_channel }
          global_config:
            op_state_spec:
              weight: *int8_weight
          module_name_configs:
            'layer1\\..*':
              op_state_spec:
                weight: *int8_weight
        """)
    config = write(project, "rootdeleted.yaml", text)
    result = run_check(project, config)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"{config}:1:1: error: Did not find 'quantization_config'" in result.stdout, result.stdout
    # The pre-commit hook runs with --only-configs: the file is a config, not skipped.
    result = run_check(project, config, "--only-configs")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Did not find 'quantization_config'" in result.stdout
