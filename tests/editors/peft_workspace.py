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

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
from fixtures.hf_hub import TINY_LLAMA, TINY_LLAMA_ID as MODEL_ID, write_hub_config  # noqa: E402


def main(dest: Path) -> None:
    shutil.rmtree(dest, ignore_errors=True)
    write_hub_config(dest / "hf", MODEL_ID, TINY_LLAMA)
    workspace = dest / "ws"
    shutil.copytree(Path(__file__).resolve().parent / "peft", workspace)
    script = workspace / "train_lora.py"
    assert f'"{MODEL_ID}"' in script.read_text(), "the script names the cached model"
    print(json.dumps({"hf_home": str(dest / "hf"), "workspace": str(workspace), "script": str(script)}))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: peft_workspace.py DEST")
    main(Path(sys.argv[1]).resolve())
