// What the editor and `opscope check` show for an llm-compressor modifier: diagnostics, hover,
// completion, and one module's verdict. Pure functions of (modifier, resolution, model), in the
// answers every dialect gives (the engine shows them as they are).
#pragma once

#include "opscope/dialects/dialect.h"
#include "opscope/dialects/llmcompressor/config.h"
#include "opscope/dialects/llmcompressor/resolve.h"
#include "opscope/index/index.h"

#include <optional>
#include <string>
#include <vector>

namespace opscope::dialects::llmcompressor {

// The answers' types are every dialect's (opscope/dialects/answers.h). Diagnostic codes, stable:
// "no-match", "not-quantizable", "targeted-and-ignored", "head-quantized", "mapping-no-match",
// "regex", and resolve()'s error codes ("field", "scheme", "scheme-and-groups", "args",
// "no-config", "group-size", "nothing-quantized", "mapping"), "unreadable"; the document adds
// "recipe-not-read" (not_read.h) for a modifier written where llm-compressor never reads it
using dialects::CompletionItem;
using dialects::Diagnostic;
using dialects::Fix;
using dialects::Hover;
using dialects::Severity;

std::vector<Diagnostic> diagnose(const Modifier& modifier, const Resolution& resolution,
                                 const index::Index& model);

std::optional<Hover> hover(const Modifier& modifier, const Resolution& resolution,
                           const index::Index& model, config::Position cursor);

// Names to complete where a target, ignore or mapping entry is typed (empty elsewhere): module
// names, `re:` patterns of their leaf names and class names, with how many modules each matches.
// complete() is entry_at() and candidates() with the entry's replace range.
std::vector<CompletionItem> complete(const Modifier& modifier, const index::Index& model,
                                     config::Position cursor);
// The target, ignore or mapping entry the cursor is in (null elsewhere).
const Written* entry_at(const Modifier& modifier, config::Position cursor);
// Every name completion offers on `model`, best first, their replace ranges (edit.range) empty:
// a function of the model alone, which the editor keeps between keystrokes (dialects::PerModel).
std::vector<CompletionItem> candidates(const index::Index& model);

// One module's line for `explain`: "w4 int group 128, a16 (group_0, W4A16, by `Linear`)",
// "ignored by `lm_head`", or "not targeted".
std::string explain_module(const Modifier& modifier, const Resolution& resolution,
                           const index::Index& model, int module);

} // namespace opscope::dialects::llmcompressor
