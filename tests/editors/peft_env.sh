# Sourced by the Neovim and Emacs run.sh for `run.sh peft`, with $repo and $work set: the PEFT
# workspace (no opscope.yaml above it) and the private hub cache its script's model id is in.
: "${OPSCOPE_PYTHON:?set OPSCOPE_PYTHON to the python of a venv with torch, transformers and peft}"
# $work/peft/ws holds the configs, $work/peft/hf the hub cache; nothing above names a model.
python3 "$repo/tests/editors/peft_workspace.py" "$work/peft" >/dev/null
export OPSCOPE_WS="$work/peft/ws" HF_HOME="$work/peft/hf" HF_HUB_OFFLINE=1
unset HF_HUB_CACHE HUGGINGFACE_HUB_CACHE
# The user's activated environment builds the model without a consent question.
VIRTUAL_ENV=$(dirname "$(dirname "$OPSCOPE_PYTHON")")
export VIRTUAL_ENV
