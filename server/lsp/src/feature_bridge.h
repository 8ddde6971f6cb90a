// The seam to server/features (pure functions of document and index): turns
// their results, in config byte positions, into LSP structures. The session
// knows only this header.
#pragma once

#include "position_mapper.h"

#include "opscope/config/document.h"
#include "opscope/index/index.h"
#include "opscope/index/query.h"
#include "opscope/protocol/lsp_types.h"

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
  // Why there is no (current) model: one diagnostic at the top of the config.
  std::string model_problem;
  bool model_problem_is_error = false;
  const index::QueryEngine* queries = nullptr; // over `index`, built when it loaded
  std::string model_problem_code = "no-model"; // the diagnostic's code
};

// At most `max_items` items; more sets isIncomplete.
protocol::CompletionList complete(const FeatureInput& in, protocol::Position cursor,
                                  std::size_t max_items);
std::optional<protocol::Hover> hover(const FeatureInput& in, protocol::Position cursor);
std::vector<protocol::Diagnostic> diagnose(const FeatureInput& in);
std::vector<protocol::Location> definition(const FeatureInput& in, protocol::Position cursor);
std::vector<protocol::CodeAction> code_actions(const FeatureInput& in, protocol::Range range);

} // namespace opscope::lsp
