"""A LoRA training script in the editor, with no opscope.yaml: the base model is the id the
script loads, found in a private Hugging Face cache (config.json only). The server exports it
weightless in the background, then a misspelt target is a warning offering the real name,
completion inside the target list offers the model's module names with their counts, and hover
on an entry lists what it wraps."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from conftest import text_position
from lsp_client import file_uri

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
from fixtures.hf_hub import TINY_LLAMA, TINY_LLAMA_ID as MODEL_ID, write_hub_config  # noqa: E402

SCRIPT = f'''from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("{MODEL_ID}")
config = LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_projj"])
model = get_peft_model(model, config)
'''


def test_a_lora_script_is_checked_completed_and_hovered_against_its_base_model(make_client,
                                                                                tmp_path):
    home = write_hub_config(tmp_path / "hf", MODEL_ID, TINY_LLAMA)
    project = tmp_path / "project"
    project.mkdir()
    script = project / "train.py"
    script.write_text(SCRIPT)
    client = make_client(env={"HF_HOME": str(home), "VIRTUAL_ENV": sys.prefix})
    client.initialize(root=project)
    uri = client.open(script, SCRIPT, language="python")

    def has_no_match(diags):
        return any(d.get("code") == "no-match" for d in diags)

    diags = client.diagnostics(uri, has_no_match, timeout=240)
    no_match = [d for d in diags if d.get("code") == "no-match"]
    assert len(no_match) == 1, diags
    assert no_match[0]["range"]["start"]["line"] == 4
    assert "v_projj" in no_match[0]["message"]
    assert "v_proj" in json.dumps(no_match[0].get("data", {})) or \
        "`v_proj`" in no_match[0]["message"], no_match[0]

    # Completion inside `"v_projj"`: the model's leaf names, with how many modules each names.
    line = SCRIPT.splitlines()[4]
    start = line.index('"v_projj"') + 1
    listed = client.result("textDocument/completion", text_position(uri, 4, start))
    labels = {item["label"]: item.get("detail", "") for item in listed["items"]}
    assert "v_proj" in labels and "q_proj" in labels, sorted(labels)[:20]
    assert "2" in labels["v_proj"], labels["v_proj"]  # one per layer of the two
    # After the `v`: only the names that hold it, as the editor filters them; the list says it
    # is incomplete, so the editor asks again as the user types or deletes.
    listed = client.result("textDocument/completion", text_position(uri, 4, start + 1))
    labels = {item["label"] for item in listed["items"]}
    assert "v_proj" in labels and "model.layers.1.self_attn.v_proj" in labels, labels
    assert "q_proj" not in labels, labels
    assert listed["isIncomplete"] is True

    # Hover on `q_proj`: the modules it wraps.
    hover = client.result("textDocument/hover",
                          text_position(uri, 4, line.index('"q_proj"') + 2))
    text = hover["contents"]["value"] if isinstance(hover["contents"], dict) else str(hover)
    assert "model.layers.0.self_attn.q_proj" in text and "model.layers.1.self_attn.q_proj" in text

    # Hover on the `r` keyword: its type and PEFT's own help.
    hover = client.result("textDocument/hover", text_position(uri, 4, line.index("r=8")))
    text = hover["contents"]["value"] if isinstance(hover["contents"], dict) else str(hover)
    assert "`int`" in text and "Lora attention dimension" in text, text
    # Right inside `LoraConfig(`: its keywords, each with its type (those written are left out).
    listed = client.result("textDocument/completion",
                           text_position(uri, 4, line.index("LoraConfig(") + len("LoraConfig(")))
    fields = {item["label"]: item.get("detail", "") for item in listed["items"]}
    assert "lora_dropout" in fields and "float" in fields["lora_dropout"], sorted(fields)[:20]
    assert "lora_alpha" not in fields and "target_modules" not in fields, sorted(fields)
    # A keyword LoraConfig does not take is an error as it is typed (the script would raise
    # TypeError), with the field meant.
    mark = client.mark()
    client.change(uri, 2, SCRIPT.replace("lora_alpha=16", "lora_alpah=16"))

    def has_unknown_field(diags):
        return any(d.get("code") == "unknown-field" for d in diags)

    diags = client.diagnostics(uri, has_unknown_field, timeout=60, start=mark)
    unknown = [d for d in diags if d.get("code") == "unknown-field"]
    assert unknown[0]["severity"] == 1 and "`lora_alpha`" in unknown[0]["message"], unknown
    assert client.shutdown_and_exit() == 0
    assert any("exporting" in line for line in client.stderr_lines), client.stderr_lines

    # The editor opened again: the index of the unchanged config.json is read, not exported.
    again = make_client(env={"HF_HOME": str(home), "VIRTUAL_ENV": sys.prefix})
    again.initialize(root=project)
    uri = again.open(script, SCRIPT, language="python")
    assert any(d.get("code") == "no-match"
               for d in again.diagnostics(uri, has_no_match, timeout=60))
    assert again.shutdown_and_exit() == 0
    assert not any("exporting" in line for line in again.stderr_lines), again.stderr_lines
