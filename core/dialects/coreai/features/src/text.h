// Small text helpers shared by the features: writing a key back into the
// document in the right quoting, nearest-name suggestions, source locations.
#pragma once

#include "opscope/coreai/config/document.h"
#include "opscope/features/model.h"

#include <optional>
#include <string>
#include <vector>

namespace opscope::features::detail {

// `value` written as a key of a `format` document: JSON always double-quoted;
// YAML in the quote the user opened (`quote`), else plain when YAML allows it; Python in
// the quote opened (escaped unless `raw`), a field name plain, anything else double-quoted.
std::string render_key(const std::string& value, config::Format format, char quote,
                       bool raw = false);

// Up to `count` plausible `candidates` nearest to `target` (core/index's nearest_names).
std::vector<std::string> nearest(const std::string& target,
                                 const std::vector<std::string>& candidates, std::size_t count);

// Replacement patterns for a regex that matches nothing: the nearest real names
// (escaped) for a literal, or the pattern with its literal stem replaced by the
// nearest real name prefix (`layer9.*` -> `layer1.*`) when they match something.
std::vector<std::string> suggest_patterns(const std::string& pattern,
                                          const std::vector<std::string>& names, std::size_t count);

// The user's own frame of an op (index::user_frame: not PyTorch's code), if any.
std::optional<SourceLocation> op_location(const index::Op& op);

// The key under `cursor`, if any (the first instance of an aliased key).
const config::PatternKey* key_at(const config::ConfigDocument& document, config::Position cursor);

} // namespace opscope::features::detail
