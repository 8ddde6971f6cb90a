"""Weightless exports and `hf:CONFIG` through the real binaries: weightless is the default
(issue 22), `--with-weights` / `weightless: false` build real weights, an `hf:` target is
always weightless, the fallback warning reaches the user, and `opscope check` reads the
project keys (`model: hf:./config.json`, `weightless`). The names themselves are held equal to
a real export by tests/fidelity/test_weightless.py."""

from __future__ import annotations

import json
import sys
import zipfile

import pytest

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
    # No flag: weightless is the default, and the fallback still says why it used weights.
    result = opscope(env, "export", "reads_values.py:ReadsValues", "--input", "2x4",
                     "-o", archive, cwd=tmp_path)
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


def _export_json(env, *args, cwd) -> tuple[dict, str]:
    result = opscope(env, "export", *args, "--json", cwd=cwd)
    return json.loads(ok(result).strip().splitlines()[-1]), result.stderr


SMALL_MODEL = ("import torch\n"
               "def build():\n"
               "    return torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU())\n")


def test_weightless_is_the_default_and_with_weights_builds_them(env, tmp_path):
    (tmp_path / "small.py").write_text(SMALL_MODEL, encoding="utf-8")
    target = ["small.py:build", "--input", "1x64"]
    described, stderr = _export_json(env, *target, "-o", tmp_path / "default.pt2", cwd=tmp_path)
    assert described["weightless"] is True and "warning" not in stderr
    assert _weight_bytes(tmp_path / "default.pt2") == 0
    described, _ = _export_json(env, *target, "--with-weights", "-o", tmp_path / "real.pt2",
                                cwd=tmp_path)
    assert described["weightless"] is False
    assert _weight_bytes(tmp_path / "real.pt2") == (64 * 64 + 64) * 4
    # --weightless is still accepted (it is the default); with --with-weights it is a usage error.
    described, _ = _export_json(env, *target, "--weightless", "-o", tmp_path / "w.pt2",
                                cwd=tmp_path)
    assert described["weightless"] is True
    both = opscope(env, "export", *target, "--weightless", "--with-weights", "-o",
                   tmp_path / "x.pt2", cwd=tmp_path)
    assert both.returncode == 2 and "contradict" in both.stderr
    helped = ok(opscope(env, "export", "--help"))
    assert "--with-weights" in helped and "--weightless            the default" in helped


def test_hf_target_is_weightless_without_flags_and_refuses_weights(env, tmp_path):
    """`opscope export hf:PATH/config.json -o m.pt2` with no flag built real random weights (a
    Llama-3-70B-shaped config: 62 s, 23 GB); a config has no weights to keep."""
    (tmp_path / "config.json").write_text(json.dumps(TINY_LLAMA), encoding="utf-8")
    archive = tmp_path / "m.pt2"
    described, stderr = _export_json(env, f"hf:{tmp_path / 'config.json'}", "-o", archive,
                                     cwd=tmp_path)
    assert described["weightless"] is True and described["fallback"] is None, stderr
    assert _weight_bytes(archive) == 0
    refused = opscope(env, "export", f"hf:{tmp_path}", "--with-weights", "-o",
                      tmp_path / "r.pt2", cwd=tmp_path)
    assert refused.returncode == 1 and not (tmp_path / "r.pt2").exists()
    message = refused.stderr.strip().splitlines()[-1]
    assert message.startswith(f"opscope: exporting hf:{tmp_path}: ") and \
        "always exported without weight data; drop --with-weights" in message, message


def _cached_exports(cache) -> list:
    return sorted((cache / "opscope" / "exports").glob("*.pt2"))


@needs_worker
@pytest.mark.parametrize("project_line, weightless", [("", True), ("weightless: false\n", False),
                                                      ("weightless: true\n", True)])
def test_check_exports_a_project_weightless_unless_it_says_false(env, tmp_path, project_line,
                                                                   weightless):
    (tmp_path / "small.py").write_text(SMALL_MODEL, encoding="utf-8")
    (tmp_path / "opscope.yaml").write_text(
        f"model: small.py:build\ninputs: [1x64]\n{project_line}python: {sys.executable}\n",
        encoding="utf-8")
    config = tmp_path / "quant.yaml"
    config.write_text("quantization_config:\n  module_name_configs:\n    '0': null\n",
                      encoding="utf-8")
    cache = tmp_path / "cache"
    result = opscope(env, "check", config, "--trust", cwd=tmp_path,
                     extra_env={"XDG_CACHE_HOME": str(cache)})
    assert result.returncode == 0, (result.stdout, result.stderr)
    [archive] = _cached_exports(cache)
    assert (_weight_bytes(archive) == 0) is weightless
