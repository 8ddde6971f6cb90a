// The two ways context_at finds a cursor's context, exposed so a test can require
// them to agree wherever the fast one answers.
#pragma once

#include "opscope/config/tree.h"
#include "opscope/coreai/config/context.h"

#include <optional>

namespace opscope::config::detail {

// The cursor inside a pattern key the document already holds: no re-read.
// nullopt when the cursor is anywhere else (or where a marker could split a token).
std::optional<CursorContext> context_in_pattern_key(const ConfigDocument& document,
                                                    Position cursor);

// Re-reads the document with a marker byte at the cursor: works everywhere.
CursorContext context_by_marker(const ConfigDocument& document, Position cursor);

// The same for a Python document: a pattern key's string only (python_context.cpp).
CursorContext python_context_by_marker(const ConfigDocument& document, Position cursor);

// A Python text re-read with `marker` (an identifier) at `offset`, repaired as
// python_context_by_marker repairs it (config::scan_marked).
Tree python_scan_marked(std::string_view text, std::size_t offset, std::string_view marker);

} // namespace opscope::config::detail
