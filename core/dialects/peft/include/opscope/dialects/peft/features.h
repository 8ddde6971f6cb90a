// What the editor and `opscope check` show for a PEFT config: diagnostics, hover, completion.
// Pure functions of (config, resolution, model); the engine converts to its own types.
#pragma once

#include "opscope/dialects/peft/config.h"
#include "opscope/dialects/peft/resolve.h"
#include "opscope/index/index.h"

#include <optional>
#include <string>
#include <vector>

namespace opscope::dialects::peft {

enum class Severity { Error, Warning, Information };
struct Replacement {
  std::string title; // "Replace with `v_proj`"
  config::Range range;
  std::string new_text;
};
struct Finding {
  config::Range range;
  Severity severity = Severity::Warning;
  // stable: "no-match", "unsupported-module", "layer-out-of-range", "pattern-no-match",
  // "save-suffix", "all-excluded", "targets-excluded", "no-target", "regex",
  // "layers-with-regex", "layers-pattern-alone", "rank", "save-unwrappable", "unreadable"
  std::string code;
  std::string message;
  std::vector<Replacement> fixes;
};
std::vector<Finding> diagnose(const PeftConfig& config, const Resolution& resolution,
                              const index::Index& model);

struct HoverText {
  config::Range range;
  std::string markdown;
};
std::optional<HoverText> hover(const PeftConfig& config, const Resolution& resolution,
                               const index::Index& model, config::Position cursor);

struct Suggestion {
  std::string label;  // "q_proj" or "model.layers.0.self_attn.q_proj"
  std::string detail; // "×32 Linear"
  std::string sort_text;
  config::Range replace; // the string being typed (its quotes excluded)
};
// Names to complete where a module name is typed in `config` (empty elsewhere).
std::vector<Suggestion> complete(const PeftConfig& config, const index::Index& model,
                                 config::Position cursor);

} // namespace opscope::dialects::peft
