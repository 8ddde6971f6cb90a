// The values of a config (specs, settings), as PyYAML / json would load them, for the
// features that need more than the pattern keys (the projected size reads the weight specs).
// Tolerant like the rest of core/config: a half-typed document yields what can be read.
#pragma once

#include "opscope/coreai/config/document.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace opscope::config {

// Aliases and merge keys expand to at most this many values in all (a "billion laughs"
// document yields nothing instead of exhausting memory).
inline constexpr std::size_t kMaxExpandedValues = 1'000'000;

// The document as a JSON value with key order kept (a key written twice keeps its first
// position and its last value, as Python's dict does). YAML plain scalars become null,
// booleans, integers or floats as PyYAML's safe loader reads them; quoted ones stay strings.
// Nothing when the document has no mapping at its root or expands beyond kMaxExpandedValues.
std::optional<nlohmann::ordered_json> read_values(const std::string& text, Format format);

// The same, from the tree read_config already scanned (no second scan). A Python config's
// literals keep the type they were written with (`4` an integer, `"4"` a string, `None` null,
// True a boolean); an expression the reader does not evaluate (`torch.int8`, a variable) is
// its source text, as a string. Each config call is the value of its root key (the last call
// for a key written twice, as for a YAML key written twice).
std::optional<nlohmann::ordered_json> read_values(const ConfigDocument& document);

} // namespace opscope::config
