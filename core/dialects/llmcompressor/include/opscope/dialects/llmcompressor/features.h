// What the editor and `opscope check` show for an llm-compressor modifier: diagnostics, hover,
// completion, and one module's verdict. Pure functions of (modifier, resolution, model); the
// engine converts to its own types. The structs are the PEFT dialect's shapes.
#pragma once

#include "opscope/dialects/llmcompressor/config.h"
#include "opscope/dialects/llmcompressor/resolve.h"
#include "opscope/index/index.h"

#include <optional>
#include <string>
#include <vector>

namespace opscope::dialects::llmcompressor {

enum class Severity { Error, Warning, Information };
struct Replacement {
  std::string title; // "Replace with `model.language_model.lm_head`"
  config::Range range;
  std::string new_text;
};
struct Finding {
  config::Range range;
  Severity severity = Severity::Warning;
  // stable: "no-match", "targeted-and-ignored", "head-quantized", "mapping-no-match",
  // "mapping", "regex", "scheme", "scheme-and-groups", "args", "group-size", "unreadable"
  std::string code;
  std::string message;
  std::vector<Replacement> fixes;
};
std::vector<Finding> diagnose(const Modifier& modifier, const Resolution& resolution,
                              const index::Index& model);

struct HoverText {
  config::Range range;
  std::string markdown;
};
std::optional<HoverText> hover(const Modifier& modifier, const Resolution& resolution,
                               const index::Index& model, config::Position cursor);

struct Suggestion {
  std::string label;  // "model.layers.0.self_attn.q_proj", "re:.*q_proj$", "Linear"
  std::string detail; // "×32 Linear"
  std::string sort_text;
  config::Range replace; // the string being typed (its quotes excluded)
};
// Names to complete where a target, ignore or mapping entry is typed (empty elsewhere): module
// names, `re:` patterns of their leaf names and class names, with how many modules each matches.
std::vector<Suggestion> complete(const Modifier& modifier, const index::Index& model,
                                 config::Position cursor);

// One module's line for `explain`: "w4 int group 128, a16 (group_0, W4A16, by `Linear`)",
// "ignored by `lm_head`", or "not targeted".
std::string explain_module(const Modifier& modifier, const Resolution& resolution,
                           const index::Index& model, int module);

} // namespace opscope::dialects::llmcompressor
