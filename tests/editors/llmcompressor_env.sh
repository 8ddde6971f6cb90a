# Sourced by the Neovim and Emacs run.sh for `run.sh llmcompressor`, with $repo and $work set: a
# copy of ../llmcompressor (a Gemma 3 checkpoint's config.json, the head in its ignore list by
# its transformers 4.5x name; a recipe), no opscope.yaml above it: the checkpoint is its own model.
: "${OPSCOPE_PYTHON:?set OPSCOPE_PYTHON to the python of a venv with torch and transformers}"
rm -rf "$work/llmcompressor"
mkdir -p "$work/llmcompressor/hf"
cp -r "$repo/tests/editors/llmcompressor" "$work/llmcompressor/ws"
export OPSCOPE_WS="$work/llmcompressor/ws" HF_HOME="$work/llmcompressor/hf" HF_HUB_OFFLINE=1
unset HF_HUB_CACHE HUGGINGFACE_HUB_CACHE
# The user's activated environment builds the model without a consent question.
VIRTUAL_ENV=$(dirname "$(dirname "$OPSCOPE_PYTHON")")
export VIRTUAL_ENV
