// coreai-opt's rewrites (DialectDocument::rewriting): a Quantizer config proposed for a few size
// budgets (core/dialects/coreai/propose), each the whole config with entries appended, offered
// as a code action once the weight error is measured. Measuring every weight under every choice
// takes seconds (GPT-2-124M's shape: ~10 s of CPU; minutes for a billion weights), so the host
// runs it only for a config whose actions were asked for.
#pragma once

#include "opscope/coreai/config/document.h"
#include "opscope/dialects/dialect.h"
#include "opscope/index/index.h"

#include <memory>
#include <string>
#include <vector>

namespace opscope::dialects::coreai {

// One revision of a config (its own copy of the text: the thread parses it again rather than
// hold the workspace's parse for seconds).
struct ProposalSubject {
  std::string weights; // where the weights are: an archive or a checkpoint
  std::string path;    // the config's file, for messages
  std::string text;
  config::Format format = config::Format::Yaml;
  std::shared_ptr<const index::Index> index;
};

std::unique_ptr<Rewriting> proposal_rewriting(ProposalSubject subject);

// The budgets offered, in bits per weight (besides the config's own size).
const std::vector<double>& proposal_budgets();

// What the editor shows while the proposals are computed.
RewritesOffered proposals_offered(int root_line);

} // namespace opscope::dialects::coreai
