"""examples/llmcompressor as its README runs it: `opscope check` on the checkpoint's config.json
and the recipe warns that `language_model.lm_head` (the head's transformers 4.5x name) matches
nothing and offers `lm_head`; `opscope explain` on both prints each module's scheme and the
projected checkpoint size; with the suggested name the warning goes and the head is left out.
Run from the source folder with `--trust` as the README writes it, with the test's own caches
and consent store, and this venv's Python as the activated environment."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SOURCE_DIR = Path(__file__).resolve().parents[3]
EXAMPLE = Path("examples") / "llmcompressor"


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return tmp_path_factory.mktemp("examples")


def opscope(home, *args, cwd=SOURCE_DIR):
    env = dict(os.environ, XDG_CACHE_HOME=str(home / "cache"),
               XDG_CONFIG_HOME=str(home / "config"), VIRTUAL_ENV=sys.prefix,
               HF_HUB_OFFLINE="1")
    return subprocess.run([os.environ["OPSCOPE_BIN"], *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def test_the_example_is_small_and_holds_no_weights():
    files = [p for p in (SOURCE_DIR / EXAMPLE).rglob("*") if p.is_file()]
    assert sum(p.stat().st_size for p in files) < 20_000, files
    assert not [p for p in files if p.suffix in (".safetensors", ".bin", ".pt", ".pt2")], files


@pytest.mark.parametrize("config, line", [("config.json", 136), ("recipe.yaml", 10)])
def test_check_warns_of_the_old_head_name_and_offers_the_real_one(home, config, line):
    result = opscope(home, "check", str(EXAMPLE / config), "--trust")
    assert result.returncode == 0, result.stdout + result.stderr
    assert (f"{EXAMPLE / config}:{line}:") in result.stdout, result.stdout
    assert ("warning: ignore entry `language_model.lm_head` matches no module of the model: it "
            "leaves nothing out, and nothing says so; did you mean `lm_head`? [no-match]"
            in result.stdout), result.stdout
    assert "[head-quantized]" in result.stdout, result.stdout
    # The two regexes (vision tower, projector) match: one warning, no more.
    assert result.stdout.count("[no-match]") == 1, result.stdout
    assert "0 errors, 1 warning" in result.stderr, result.stderr


@pytest.mark.parametrize("config, scheme, size", [
    ("config.json", "w4 int group 32, a16", "0.467 MB -> 0.228 MB"),
    ("recipe.yaml", "w4 int group 128, a16", "0.467 MB -> 0.222 MB"),
])
def test_explain_prints_the_schemes_and_the_projected_size(home, config, scheme, size):
    result = opscope(home, "explain", str(EXAMPLE / config), "--trust")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "quantizes 15 of 72 modules, 9 ignored" in result.stdout, result.stdout
    rows = {line.split()[0]: line for line in result.stdout.splitlines()[2:]
            if line.startswith("  ")}
    assert scheme in rows["model.language_model.layers.0.self_attn.q_proj"], result.stdout
    assert scheme in rows["lm_head"], result.stdout  # the head is quantized: the warning's point
    assert "ignored by `re:.*vision_tower.*`" in rows["model.vision_tower.head.mlp.fc1"]
    projected = [line for line in result.stdout.splitlines() if line.startswith("projected size:")]
    assert projected and size in projected[0], result.stdout


def test_the_offered_name_leaves_the_head_out(home, tmp_path):
    folder = tmp_path / "llmcompressor"
    shutil.copytree(SOURCE_DIR / EXAMPLE, folder)
    recipe = folder / "recipe.yaml"
    recipe.write_text(recipe.read_text().replace("[language_model.lm_head,", "[lm_head,"))
    checked = opscope(home, "check", str(recipe), "--trust", cwd=folder)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "[no-match]" not in checked.stdout and "[head-quantized]" not in checked.stdout, \
        checked.stdout
    explained = opscope(home, "explain", str(recipe), "--trust", cwd=folder)
    assert explained.returncode == 0, explained.stdout + explained.stderr
    head = [line for line in explained.stdout.splitlines() if line.split()[:1] == ["lm_head"]]
    assert head and "ignored by `lm_head`" in head[0], explained.stdout
    assert "quantizes 14 of 72 modules, 10 ignored" in explained.stdout, explained.stdout
