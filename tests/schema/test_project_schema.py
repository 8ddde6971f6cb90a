"""The JSON Schema for opscope.yaml (editors/vscode/schemas/opscope.schema.json), which the
VS Code YAML extension and yaml-language-server use to complete and check the project file."""

import json
import re
from pathlib import Path

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "editors/vscode/schemas/opscope.schema.json").read_text())


def test_the_projects_in_the_repository_are_valid():
    projects = list((ROOT / "examples").rglob("opscope.yaml"))
    assert projects
    for path in projects:
        jsonschema.validate(yaml.safe_load(path.read_text()), SCHEMA)


@pytest.mark.parametrize("bad", [{"mode": "grph"}, {"compressor": "quantiser"},
                                 {"inputs": "1x3x224x224"}, {"model": 3}])
def test_a_wrong_value_is_refused(bad):
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, SCHEMA)


def test_every_key_the_project_reader_knows_is_described():
    source = "\n".join(p.read_text() for p in (ROOT / "engine/project/src").glob("*.cpp"))
    # The project file's reader compares each key it reads (`key == "model"`); settings_from_json
    # reads the editor settings (camelCase, e.g. hfClass), which are not project-file keys.
    keys = set(re.findall(r'key == "(\w+)"', source))
    assert keys, "the project reader's keys were not found"
    assert keys <= set(SCHEMA["properties"]), keys - set(SCHEMA["properties"])
    for key, prop in SCHEMA["properties"].items():
        assert prop.get("description"), key


def test_the_vscode_extension_associates_it_with_opscope_yaml():
    package = json.loads((ROOT / "editors/vscode/package.json").read_text())
    entries = package["contributes"]["yamlValidation"]
    assert {"fileMatch": "opscope.yaml", "url": "./schemas/opscope.schema.json"} in entries
