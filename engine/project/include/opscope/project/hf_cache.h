// The local Hugging Face cache, read the way huggingface_hub lays it out, so that a config that
// names its base model by id (`"meta-llama/Llama-3.1-8B"`) finds the model's config.json
// without a download and without running Python.
#pragma once

#include <optional>
#include <string>

namespace opscope::project {

// The hub cache folder: $HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub.
std::string hf_hub_cache();

// `ORG/NAME` (or `NAME`) as the hub spells ids: no path separators beyond one slash, no `..`.
bool looks_like_hf_id(const std::string& text);

// The cached config.json of `id` at the revision refs/main points to (else the only snapshot
// holding one); nothing when the cache does not hold it.
std::optional<std::string> hf_cached_config(const std::string& id);

} // namespace opscope::project
