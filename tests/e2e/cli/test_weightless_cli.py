"""`--weightless` and `hf:CONFIG` through the real binaries: the flags reach the export
helper, the fallback warning reaches the user, and `opscope check` reads the project keys
(`model: hf:./config.json`, `weightless: true`). The names themselves are held equal to a
real export by tests/fidelity/test_weightless.py."""

from __future__ import annotations

import json
import sys
import zipfile

from test_cli import env, needs_worker, ok, opscope, worker_built  # noqa: F401 (fixtures)

TINY_LLAMA = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "vocab_size": 100,
              "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
              "num_key_value_heads": 2, "intermediate_size": 64, "max_position_embeddings": 64}


def _weight_bytes(archive) -> int:
    with zipfile.ZipFile(archive) as archive_zip:
        return sum(info.file_size for info in archive_zip.infolist()
                   if "/data/weights/weight_" in info.filename)


@needs_worker
def test_hf_config_summary_and_export_without_weights(env, tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(TINY_LLAMA), encoding="utf-8")
    summary = ok(opscope(env, "summary", f"hf:{tmp_path / 'config.json'}", "--weightless",
                         "--no-color", cwd=tmp_path))
    assert "model.layers.1.self_attn.q_proj" in summary and "LlamaForCausalLM" in summary
    archive = tmp_path / "llama.pt2"
    result = opscope(env, "export", f"hf:{tmp_path}", "--weightless", "--hf-class", "LlamaModel",
                     "-o", archive, "--json", cwd=tmp_path)
    described = json.loads(ok(result).strip().splitlines()[-1])
    assert described["weightless"] is True and described["model_type"].endswith("LlamaModel")
    assert _weight_bytes(archive) == 0
    assert "warning" not in result.stderr


def test_fallback_to_real_weights_is_one_warning(env, tmp_path):
    (tmp_path / "reads_values.py").write_text(
        "import torch\n"
        "class ReadsValues(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.linear = torch.nn.Linear(4, 4)\n"
        "        self.rate = self.linear.weight.abs().max().item()  # its weights' values\n"
        "    def forward(self, x):\n"
        "        return self.linear(x) * self.rate\n", encoding="utf-8")
    archive = tmp_path / "r.pt2"
    result = opscope(env, "export", "reads_values.py:ReadsValues", "--input", "2x4",
                     "--weightless", "-o", archive, cwd=tmp_path)
    ok(result)
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1, result.stderr
    assert warnings[0].startswith("opscope: warning: reads_values.py:ReadsValues: cannot export "
                                  "without weights (building it without weight data failed")
    assert warnings[0].endswith("exported with real weights instead")
    assert _weight_bytes(archive) > 0


@needs_worker
def test_check_reads_hf_config_and_weightless_from_the_project(env, tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(TINY_LLAMA), encoding="utf-8")
    (tmp_path / "opscope.yaml").write_text(
        f"model: hf:./config.json\nweightless: true\npython: {sys.executable}\n",
        encoding="utf-8")
    config = tmp_path / "quant.yaml"
    config.write_text("quantization_config:\n  module_name_configs:\n"
                      "    model.layers.1.mlp.down_proj: null\n"
                      "    model.layers.7.mlp: null\n", encoding="utf-8")
    result = opscope(env, "check", config, "--trust", cwd=tmp_path)
    # The model loaded: the real layer matches, the missing one is flagged on its line.
    assert "quant.yaml:4:" in result.stdout, (result.stdout, result.stderr)
    assert "quant.yaml:3:" not in result.stdout, result.stdout
