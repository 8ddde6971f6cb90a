// The modifiers of a recipe that llm-compressor never reads (written outside
// `<x>_stage: <y>_modifiers:`): said by the diagnostics and by `explain`, in the same words.
#pragma once

#include "opscope/dialects/dialect.h"
#include "opscope/dialects/llmcompressor/config.h"

#include <vector>

namespace opscope::dialects::llmcompressor {

// One "recipe-not-read" finding on each modifier key llm-compressor will not see: a warning, an
// error when the recipe holds no modifier it reads at all (oneshot then saves the model as it
// is).
std::vector<dialects::Finding> not_read(const std::vector<Modifier>& modifiers);

} // namespace opscope::dialects::llmcompressor
