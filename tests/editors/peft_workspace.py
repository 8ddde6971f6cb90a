#!/usr/bin/env python3
"""Prepares the editor tests' PEFT folder: the PEFT configs of peft/ (a training script, a saved
adapter_config.json, axolotl YAML) in a workspace without opscope.yaml, and a private Hugging
Face cache laid out as the hub's that holds the config.json (only) of the tiny Llama they name.
Run: peft_workspace.py DEST; DEST is recreated. Prints JSON: hf_home (to set as HF_HOME for the
editor's server), workspace, script (the training script).
"""
import json
import shutil
import sys
from pathlib import Path

MODEL_ID = "opscope-test/tiny-llama"
REVISION = "0123456789abcdef0123456789abcdef01234567"
# Small enough to export in seconds: what a LlamaForCausalLM needs to be built from config.json.
TINY_LLAMA = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "vocab_size": 256,
    "max_position_embeddings": 128,
    "tie_word_embeddings": False,
}


def main(dest: Path) -> None:
    shutil.rmtree(dest, ignore_errors=True)
    repo = dest / "hf" / "hub" / ("models--" + MODEL_ID.replace("/", "--"))
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(REVISION)
    snapshot = repo / "snapshots" / REVISION
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text(json.dumps(TINY_LLAMA, indent=2))
    workspace = dest / "ws"
    shutil.copytree(Path(__file__).resolve().parent / "peft", workspace)
    script = workspace / "train_lora.py"
    assert f'"{MODEL_ID}"' in script.read_text(), "the script names the cached model"
    print(json.dumps({"hf_home": str(dest / "hf"), "workspace": str(workspace), "script": str(script)}))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: peft_workspace.py DEST")
    main(Path(sys.argv[1]).resolve())
