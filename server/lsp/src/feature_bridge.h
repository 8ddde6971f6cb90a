// The seam to the dialects' answers (opscope/dialects/dialect.h): asks the document of a
// revision, and turns what it answers, in config byte positions, into LSP structures.
#pragma once

#include "position_mapper.h"

#include "opscope/dialects/dialect.h"
#include "opscope/protocol/lsp_types.h"

#include <optional>
#include <string>
#include <vector>

namespace opscope::lsp {

struct FeatureInput {
  const dialects::DialectDocument& document; // the revision, as its dialect read it
  dialects::Context context;                 // workspace::Workspace::context
  const PositionMapper& positions;
  std::string uri;
  std::string source_base; // resolves relative source file names (the model's folder)
};

// At most `max_items` items; more sets isIncomplete.
protocol::CompletionList complete(const FeatureInput& in, protocol::Position cursor,
                                  std::size_t max_items);
std::optional<protocol::Hover> hover(const FeatureInput& in, protocol::Position cursor);
// The workspace's diagnostics of the document (workspace::Workspace::diagnose), in LSP terms.
std::vector<protocol::Diagnostic> to_lsp(const FeatureInput& in,
                                         const std::vector<dialects::Diagnostic>& diagnostics);
std::vector<protocol::Location> definition(const FeatureInput& in, protocol::Position cursor);
// The fixes of those of `diagnostics` that overlap `range`.
// The code lenses (textDocument/codeLens) of the document (coreai-opt's: the projected size and
// the weight error on its root key), as lenses without a command (shown, not clickable).
protocol::Json code_lenses(const FeatureInput& in);
std::vector<protocol::CodeAction> code_actions(const FeatureInput& in,
                                               const std::vector<dialects::Diagnostic>& diagnostics,
                                               protocol::Range range);

} // namespace opscope::lsp
