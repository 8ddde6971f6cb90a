// What the editor and `opscope check` show for a PEFT config: diagnostics, hover, completion.
// Pure functions of (config, resolution, model), in the answers every dialect gives (the engine
// shows them as they are).
#pragma once

#include "opscope/dialects/dialect.h"
#include "opscope/dialects/peft/config.h"
#include "opscope/dialects/peft/resolve.h"
#include "opscope/index/index.h"

#include <optional>
#include <string>
#include <vector>

namespace opscope::dialects::peft {

// The answers' types are every dialect's (opscope/dialects/answers.h). Diagnostic codes, stable:
// "no-match", "unsupported-module", "layer-out-of-range", "pattern-no-match", "save-suffix",
// "all-excluded", "targets-excluded", "no-target", "regex", "layers-with-regex",
// "layers-pattern-alone", "rank", "save-unwrappable", "unreadable", "unknown-field"
using dialects::CompletionItem;
using dialects::Diagnostic;
using dialects::Fix;
using dialects::Hover;
using dialects::Severity;

std::vector<Diagnostic> diagnose(const PeftConfig& config, const Resolution& resolution,
                                 const index::Index& model);

std::optional<Hover> hover(const PeftConfig& config, const Resolution& resolution,
                           const index::Index& model, config::Position cursor);

// Whatever the model: each key of a LoraConfig(...) call or an adapter_config.json that its
// class does not take (the call raises TypeError; loading the adapter ignores it with a
// warning), with the nearest field names as fixes.
std::vector<Diagnostic> diagnose_fields(const PeftConfig& config);
// On a key the class takes: its type and PEFT's help text (no model needed).
std::optional<Hover> field_hover(const PeftConfig& config, config::Position cursor);
// Where a keyword of the Python call is typed in `text` (right inside its parentheses, after
// `(` or `,`, a name begun or not): the class's fields not yet written, each with its type and
// PEFT's help, written as `name=`. Empty elsewhere (in a string, a value, a nested bracket).
std::vector<CompletionItem> complete_fields(const PeftConfig& config, std::string_view text,
                                            config::Position cursor);

// Every module name of `model` a completion offers, best first: leaf names with how many
// modules bear them and their types (`q_proj`, "×80 Linear"), then full names. Each is written
// whole over the string being typed; its range is set per request.
std::vector<CompletionItem> completion_candidates(const index::Index& model);

// Names to complete where a module name is typed in `config` (empty elsewhere): the
// `candidates` that hold what is typed before the cursor, in order (as editors filter), the
// first `limit` of them.
std::vector<CompletionItem> complete(const PeftConfig& config,
                                     const std::vector<CompletionItem>& candidates,
                                     config::Position cursor, std::size_t limit);
// The same with `model`'s candidates built for this one request.
std::vector<CompletionItem> complete(const PeftConfig& config, const index::Index& model,
                                     config::Position cursor, std::size_t limit = 200);

} // namespace opscope::dialects::peft
