"""A compressed-tensors checkpoint's config.json in the editor, with no opscope.yaml: the
architecture is in the same file, so the server exports it weightless in the background. On a
Gemma 3 whose quantization_config ignores the head by its transformers 4.5x name
(`language_model.lm_head`), the entry is a warning offering `lm_head` (the name in transformers
5) as a quick fix; applying it clears the warning and hover then says what the entry leaves out.
Completion inside the ignore list offers the model's names holding what is typed; coreai-opt's reader, whose root key
is also quantization_config, says nothing."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from conftest import text_position

TINY_GEMMA3 = dict(
    text_config=dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                     num_attention_heads=2, num_key_value_heads=1, head_dim=32, vocab_size=256,
                     sliding_window=16),
    vision_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                       num_attention_heads=2, image_size=32, patch_size=8),
    mm_tokens_per_image=4)


def gemma3_checkpoint_text(ignore):
    from transformers import Gemma3Config
    config = Gemma3Config(**TINY_GEMMA3).to_dict()
    config["architectures"] = ["Gemma3ForConditionalGeneration"]
    config["quantization_config"] = {
        "quant_method": "compressed-tensors", "format": "pack-quantized",
        "config_groups": {"group_0": {"targets": ["Linear"], "weights": {
            "num_bits": 4, "type": "int", "symmetric": True, "strategy": "group",
            "group_size": 32}}},
        "ignore": ignore}
    return json.dumps(config, indent=2) + "\n"


def test_gemma3_head_in_a_checkpoints_ignore_list_is_fixed_by_a_quick_fix(make_client, tmp_path):
    folder = tmp_path / "gemma3-w4a16"
    folder.mkdir()
    path = folder / "config.json"
    text = gemma3_checkpoint_text(["language_model.lm_head"])
    path.write_text(text)
    client = make_client(env={"VIRTUAL_ENV": sys.prefix, "HF_HOME": str(tmp_path / "hf")})
    client.initialize(root=folder)
    uri = client.open(path, text, language="json")

    def has_no_match(diags):
        return any(d.get("code") == "no-match" for d in diags)

    diags = client.diagnostics(uri, has_no_match, timeout=240)
    assert not any(d.get("code") == "unknown-field" for d in diags), diags
    no_match = [d for d in diags if d.get("code") == "no-match"]
    assert len(no_match) == 1, diags
    warning = no_match[0]
    line = next(i for i, l in enumerate(text.splitlines()) if '"language_model.lm_head"' in l)
    assert warning["range"]["start"]["line"] == line
    assert warning["severity"] == 2  # Warning
    assert "did you mean `lm_head`?" in warning["message"], warning

    # The quick fix replaces the name between the quotes.
    actions = client.result("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": warning["range"],
        "context": {"diagnostics": [warning]}})
    fixes = [a for a in actions if a.get("title") == "Replace with `lm_head`"]
    assert fixes, actions
    assert fixes[0].get("isPreferred") is True
    (edit,) = fixes[0]["edit"]["changes"][uri]
    assert edit["newText"] == "lm_head"
    lines = text.splitlines(keepends=True)
    start, end = edit["range"]["start"], edit["range"]["end"]
    assert start["line"] == end["line"] == line
    old = lines[line]
    assert old[start["character"]:end["character"]] == "language_model.lm_head"
    lines[line] = old[:start["character"]] + "lm_head" + old[end["character"]:]
    fixed = "".join(lines)
    mark = client.mark()
    client.change(uri, 2, fixed)
    after = client.diagnostics(uri, lambda d: not has_no_match(d), timeout=60, start=mark)
    assert not [d for d in after if d.get("code") in ("no-match", "head-quantized")], after

    # Hover on the fixed entry: what it matches and leaves out.
    column = lines[line].index('"lm_head"') + 2
    hover = client.result("textDocument/hover", text_position(uri, line, column))
    value = hover["contents"]["value"]
    assert "matches 1 module" in value and "leaves out 1 targeted module" in value, value
    assert "`lm_head`" in value

    # Completion after `"lm_`: the names holding what is typed (a model has thousands, the
    # editor is sent 100), the head's exact name and its pattern among them.
    items = client.result("textDocument/completion",
                          text_position(uri, line, lines[line].index('"lm_head"') + 4))
    items = items["items"] if isinstance(items, dict) else items
    labels = {item["label"]: item.get("detail", "") for item in items}
    assert "lm_head" in labels and "re:.*lm_head$" in labels, sorted(labels)
    assert "Conv2d" not in labels, sorted(labels)
    assert client.shutdown_and_exit() == 0


FLAT_RECIPE = """\
# W4A16 on every Linear but the head
QuantizationModifier:
    targets: [Linear]   # all of them
    scheme: W4A16
    ignore: [lm_head]
"""

STAGED_RECIPE = """\
# W4A16 on every Linear but the head
quant_stage:
    quant_modifiers:
        QuantizationModifier:
            targets: [Linear]   # all of them
            scheme: W4A16
            ignore: [lm_head]
"""


def test_a_flat_recipe_is_wrapped_in_a_stage_by_a_quick_fix(make_client, tmp_path):
    """A recipe written flat (the modifier at the root) is read by llm-compressor 0.14 as no
    modifier at all, and oneshot saves the model unquantized: opscope's error offers to wrap it
    in `quant_stage: quant_modifiers:`, re-indented at the recipe's own width (4) with its
    comments; applying the edit clears the error."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from config_scale import small_model_index

    (tmp_path / "model.index.json").write_text(json.dumps(small_model_index()))
    (tmp_path / "opscope.yaml").write_text("model: model.index.json\n")
    client = make_client()
    client.initialize(root=tmp_path)
    uri = client.open(tmp_path / "recipe.yaml", FLAT_RECIPE)

    def not_read(diags):
        return [d for d in diags if d.get("code") == "recipe-not-read"]

    diags = client.diagnostics(uri, not_read, timeout=120)
    (error,) = not_read(diags)
    assert error["severity"] == 1 and error["range"]["start"]["line"] == 1, error
    assert "saved unquantized" in error["message"], error

    actions = client.result("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": error["range"],
        "context": {"diagnostics": [error]}})
    fixes = [a for a in actions if a.get("title") == "Wrap in `quant_stage: quant_modifiers:`"]
    assert fixes, actions
    (edit,) = fixes[0]["edit"]["changes"][uri]
    lines = FLAT_RECIPE.splitlines(keepends=True)
    start, end = edit["range"]["start"], edit["range"]["end"]
    before = "".join(lines[:start["line"]]) + lines[start["line"]][:start["character"]]
    after = lines[end["line"]][end["character"]:] + "".join(lines[end["line"] + 1:])
    fixed = before + edit["newText"] + after
    assert fixed == STAGED_RECIPE, fixed

    mark = client.mark()
    client.change(uri, 2, fixed)
    after_fix = client.diagnostics(uri, lambda d: not not_read(d), timeout=60, start=mark)
    assert not not_read(after_fix), after_fix
    assert client.shutdown_and_exit() == 0
