// The seam to core/dialects/coreai/features' pure functions: turns their results, in config byte
// positions, into LSP structures.
#pragma once

#include "position_mapper.h"

#include "opscope/config/document.h"
#include "opscope/dialects/dialect.h"
#include "opscope/features/diagnostics.h"
#include "opscope/features/model.h"
#include "opscope/index/index.h"
#include "opscope/index/query.h"
#include "opscope/protocol/lsp_types.h"
#include "opscope/resolve/resolve.h"
#include "opscope/schema/schema.h"

#include <optional>
#include <string>
#include <vector>

namespace opscope::lsp {

struct FeatureInput {
  const config::ConfigDocument& config;
  const index::Index* index; // null while no model has loaded
  index::Compressor compressor;
  const PositionMapper& positions;
  std::string uri;
  std::string source_base; // resolves relative source file names (the model's folder)
  const index::QueryEngine* queries = nullptr;           // over `index`, built when it loaded
  const resolve::SharedResolution* resolution = nullptr; // the workspace's, per revision
  // coreai-opt's models for this config (workspace::Analysis::schema); null: the built-in copy.
  const schema::Schema* schema = nullptr;
  // Another library's config (workspace::Analysis::dialect): its dialect answers completion
  // and hover.
  const dialects::DialectDocument* dialect = nullptr;
  // The config's per-layer weight error as measured so far (WeightErrors); none: not measured.
  std::optional<features::WeightErrorState> weight_error = std::nullopt;
};

// At most `max_items` items; more sets isIncomplete.
protocol::CompletionList complete(const FeatureInput& in, protocol::Position cursor,
                                  std::size_t max_items);
std::optional<protocol::Hover> hover(const FeatureInput& in, protocol::Position cursor);
// The workspace's diagnostics of `in.config` (workspace::Workspace::diagnose), in LSP terms.
std::vector<protocol::Diagnostic> to_lsp(const FeatureInput& in,
                                         const std::vector<features::Diagnostic>& diagnostics);
std::vector<protocol::Location> definition(const FeatureInput& in, protocol::Position cursor);
// The fixes of those of `diagnostics` that overlap `range`.
// The code lenses (textDocument/codeLens) of `in.config`: the projected size and the weight
// error on its root key, as lenses without a command (shown, not clickable).
protocol::Json code_lenses(const FeatureInput& in);
std::vector<protocol::CodeAction> code_actions(const FeatureInput& in,
                                               const std::vector<features::Diagnostic>& diagnostics,
                                               protocol::Range range);

} // namespace opscope::lsp
