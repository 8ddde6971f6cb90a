"""`opscope check --format text|json|github|sarif`: the same diagnostics in each format.

The model is a committed index file (no torch, no worker). The github format is read back
with GitHub's documented workflow-command syntax and the SARIF document is validated
against the official SARIF 2.1.0 JSON Schema (OASIS, committed next to this file).
"""

import json
import os
import re
import subprocess
from pathlib import Path

import jsonschema
import pytest

HERE = Path(__file__).parent
SOURCE_DIR = HERE.parents[2]
INDEX = SOURCE_DIR / "tests" / "fuzz" / "corpus" / "index_reader" / "mymodel_graph.json"
SARIF_SCHEMA = HERE / "sarif-schema-2.1.0.json"

# A name GitHub's property escaping must handle: ',' and ':' separate the fields, '%'
# starts an escape. Its diagnostics: a no-match warning (its message has `, :` and
# backticks) and a bad-regex error.
CONFIG_NAME = "q,1:50%.yaml"
CONFIG = """\
quantization_config:
  module_name_configs:
    linear9: null
    'linear[': null
    linear1: null
"""


def run_check(cwd, *args):
    env = dict(os.environ, XDG_CACHE_HOME=str(cwd / "cache"),
               XDG_CONFIG_HOME=str(cwd / "config"))
    return subprocess.run([os.environ["OPSCOPE_BIN"], "check", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def project(tmp_path):
    (tmp_path / CONFIG_NAME).write_text(CONFIG)
    return tmp_path


def check(project, *args):
    run = run_check(project, CONFIG_NAME, "--model", str(INDEX), *args)
    assert run.returncode == 1, run.stdout + run.stderr  # the bad regex is an error
    return run.stdout


def json_lines(project):
    diagnostics = [json.loads(line) for line in check(project, "--format", "json").splitlines()]
    assert {d["code"] for d in diagnostics} >= {"no-match"}, diagnostics
    assert any(d["severity"] == "error" for d in diagnostics), diagnostics
    return diagnostics


def test_json_is_the_default_json_lines_and_json_flag_is_an_alias(project):
    assert check(project, "--json") == check(project, "--format", "json")
    text = check(project)
    assert text == check(project, "--format", "text")
    assert f"{CONFIG_NAME}:3:5: warning: `linear9` matches no module" in text


# GitHub's syntax (docs.github.com, "Workflow commands for GitHub Actions"; the escaping is
# actions/toolkit's command.ts): `::command key=value,key=value::message`; in the message
# % \r \n are %25 %0D %0A, in a value also : and , (%3A %2C).
WORKFLOW_COMMAND = re.compile(r"^::(error|warning|notice) ([^:]*)::(.*)$")


def unescape(text, escapes):
    out, i = "", 0
    while i < len(text):
        if text[i] == "%":
            code = text[i:i + 3]
            assert code in escapes, f"{code!r} is not one of GitHub's escapes in {text!r}"
            out += escapes[code]
            i += 3
        else:
            out += text[i]
            i += 1
    return out


DATA_ESCAPES = {"%25": "%", "%0D": "\r", "%0A": "\n"}
PROPERTY_ESCAPES = dict(DATA_ESCAPES, **{"%3A": ":", "%2C": ","})


def test_github_annotations_follow_the_workflow_command_syntax(project):
    expected = json_lines(project)
    lines = check(project, "--format", "github").splitlines()
    assert len(lines) == len(expected)
    for line, want in zip(lines, expected):
        match = WORKFLOW_COMMAND.match(line)
        assert match, line
        command, properties, message = match.groups()
        fields = dict(field.split("=", 1) for field in properties.split(","))
        fields = {k: unescape(v, PROPERTY_ESCAPES) for k, v in fields.items()}
        severity = {"error": "error", "warning": "warning"}.get(want["severity"], "notice")
        assert command == severity
        assert fields["file"] == CONFIG_NAME
        assert (int(fields["line"]), int(fields["col"])) == tuple(want["range"]["start"])
        assert (int(fields["endLine"]), int(fields["endColumn"])) == tuple(want["range"]["end"])
        assert fields["title"] == f"opscope {want['code']}"
        assert unescape(message, DATA_ESCAPES) == want["message"]


def test_github_message_escapes_percent_and_line_breaks(project, tmp_path):
    # A diagnostic whose message quotes a key with % and a line break (a quoted YAML key).
    (project / "odd.yaml").write_text(
        'quantization_config:\n  module_name_configs:\n    "a%b\\r\\nc": null\n')
    run = run_check(project, "odd.yaml", "--model", str(INDEX), "--format", "github")
    line = run.stdout.strip()
    assert line.startswith("::warning file=odd.yaml,line=3,"), run.stdout + run.stderr
    message = line.split("::", 2)[2]
    assert "\n" not in message and "\r" not in message
    assert "a%25b%0D%0Ac" in message, message


def test_sarif_validates_against_the_official_schema(project):
    expected = json_lines(project)
    sarif = json.loads(check(project, "--format", "sarif"))
    schema = json.loads(SARIF_SCHEMA.read_text())
    jsonschema.validate(sarif, schema, cls=jsonschema.Draft4Validator)
    assert sarif["version"] == "2.1.0"
    run = sarif["runs"][0]
    assert run["tool"]["driver"]["name"] == "opscope"
    rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    results = run["results"]
    assert len(results) == len(expected)
    for result, want in zip(results, expected):
        assert result["ruleId"] == want["code"] == rules[result["ruleIndex"]]
        assert result["level"] == {"information": "note"}.get(want["severity"], want["severity"])
        assert result["message"]["text"] == want["message"]
        location = result["locations"][0]["physicalLocation"]
        # The file name's ',' ':' '%' are percent-encoded in the URI reference.
        assert location["artifactLocation"]["uri"] == "q%2C1%3A50%25.yaml"
        region = location["region"]
        assert [region["startLine"], region["startColumn"]] == want["range"]["start"]
        assert [region["endLine"], region["endColumn"]] == want["range"]["end"]


def test_sarif_of_a_clean_config_is_a_valid_empty_run(project):
    (project / "clean.yaml").write_text("quantization_config:\n  module_name_configs:\n"
                                        "    linear1: null\n")
    run = run_check(project, "clean.yaml", "--model", str(INDEX), "--format", "sarif")
    assert run.returncode == 0, run.stderr
    sarif = json.loads(run.stdout)
    jsonschema.validate(sarif, json.loads(SARIF_SCHEMA.read_text()),
                        cls=jsonschema.Draft4Validator)
    assert sarif["runs"][0]["results"] == []


def test_unknown_or_contradicting_format_is_a_usage_error(project):
    run = run_check(project, CONFIG_NAME, "--format", "xml")
    assert run.returncode == 2
    assert "--format xml: unknown format; use text, json, github or sarif" in run.stderr
    run = run_check(project, CONFIG_NAME, "--json", "--format", "sarif")
    assert run.returncode == 2
    assert "disagree" in run.stderr


def test_only_configs_skips_files_that_are_not_compression_configs(project):
    (project / "workflow.yaml").write_text("on: push\njobs:\n  build:\n    runs-on: debian\n")
    (project / "package.json").write_text('{"name": "x", "version": "1.0.0"}\n')
    (project / "opscope.yaml").write_text(f"model: {INDEX}\n")
    files = ["workflow.yaml", "package.json", "opscope.yaml", CONFIG_NAME]
    run = run_check(project, *files, "--only-configs")
    assert run.returncode == 1, run.stderr  # the config's own error still counts
    assert {line.split(":")[0] for line in run.stdout.splitlines()} == {"q,1"}, run.stdout
    # A skipped file loads no model: a missing one is not even noticed.
    run = run_check(project, "workflow.yaml", "package.json", "--only-configs",
                    "--model", "missing.pt2")
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
    run = run_check(project, "workflow.yaml", "--model", "missing.pt2")
    assert run.returncode == 1 and "missing.pt2" in run.stdout + run.stderr
