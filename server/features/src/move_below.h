// The quick fix of an `overridden` entry whose overriding entries sit in the same table:
// move it below the last of them, so that it is applied first and wins (coreai-opt applies
// a table's entries last-written first). YAML block mappings only: the entry moves with its
// nested block and the comment lines written just above it; JSON, Python and flow-style
// YAML get no fix rather than an edit that could break them.
#pragma once

#include "opscope/config/document.h"
#include "opscope/features/diagnostics.h"

#include <optional>

namespace opscope::features::detail {

// `entry` and `last` are written keys of the same mapping, `last` after `entry`.
std::optional<Fix> move_below(const config::ConfigDocument& document,
                              const config::PatternKey& entry, const config::PatternKey& last);

} // namespace opscope::features::detail
