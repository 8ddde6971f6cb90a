// The modifiers of a recipe that llm-compressor never reads (written outside
// `<x>_stage: <y>_modifiers:`): said by the diagnostics and by `explain`, in the same words.
#pragma once

#include "opscope/dialects/dialect.h"
#include "opscope/dialects/llmcompressor/config.h"

#include <optional>
#include <string_view>
#include <vector>

namespace opscope::dialects::llmcompressor {

// One "recipe-not-read" diagnostic on each modifier key llm-compressor will not see: a warning, an
// error when the recipe holds no modifier it reads at all (oneshot then saves the model as it
// is). Given the recipe's text, each diagnostic offers the quick fix that wraps its modifiers
// where llm-compressor reads them, where one can be written.
std::vector<dialects::Diagnostic> not_read(const std::vector<Modifier>& modifiers,
                                           std::optional<std::string_view> recipe_text = {});

} // namespace opscope::dialects::llmcompressor
