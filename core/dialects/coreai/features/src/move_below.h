// The quick fix of an `overridden` entry whose overriding entries sit in the same table:
// move it below the last of them, so that it is applied first and wins (coreai-opt applies
// a table's entries last-written first). YAML block mappings only: the entry moves with its
// nested block and the comment lines written just above it; JSON, Python and flow-style
// YAML get no fix rather than an edit that could break them.
#pragma once

#include "opscope/coreai/config/document.h"
#include "opscope/features/diagnostics.h"

#include <optional>
#include <string_view>
#include <vector>

namespace opscope::features::detail {

// The most lines an entry moves past: a fix that rewrites more is no help to read, and each
// `overridden` entry of a 50,000-key config would otherwise carry a copy of the document.
inline constexpr int kMaxLinesMovedPast = 400;

// The document's lines, each with its line break (split once per document, not per fix).
std::vector<std::string_view> document_lines(std::string_view text);

// `entry` and `last` are written keys of the same mapping, `last` after `entry`; `lines` is
// document_lines(document.text).
std::optional<Fix> move_below(const config::ConfigDocument& document,
                              const std::vector<std::string_view>& lines,
                              const config::PatternKey& entry, const config::PatternKey& last);

} // namespace opscope::features::detail
