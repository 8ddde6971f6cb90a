// What the editor and `opscope check` show for a PEFT config: diagnostics, hover, completion.
// Pure functions of (config, resolution, model); the engine converts to its own types.
#pragma once

#include "opscope/dialects/dialect.h"
#include "opscope/dialects/peft/config.h"
#include "opscope/dialects/peft/resolve.h"
#include "opscope/index/index.h"

#include <optional>
#include <string>
#include <vector>

namespace opscope::dialects::peft {

// The answers' types are every dialect's (opscope/dialects/dialect.h). Finding codes, stable:
// "no-match", "unsupported-module", "layer-out-of-range", "pattern-no-match", "save-suffix",
// "all-excluded", "targets-excluded", "no-target", "regex", "layers-with-regex",
// "layers-pattern-alone", "rank", "save-unwrappable", "unreadable"
using dialects::Finding;
using dialects::HoverText;
using dialects::Replacement;
using dialects::Severity;
using dialects::Suggestion;

std::vector<Finding> diagnose(const PeftConfig& config, const Resolution& resolution,
                              const index::Index& model);

std::optional<HoverText> hover(const PeftConfig& config, const Resolution& resolution,
                               const index::Index& model, config::Position cursor);

// Names to complete where a module name is typed in `config` (empty elsewhere).
std::vector<Suggestion> complete(const PeftConfig& config, const index::Index& model,
                                 config::Position cursor);

} // namespace opscope::dialects::peft
