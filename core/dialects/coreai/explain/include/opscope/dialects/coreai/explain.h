// coreai-opt's `opscope explain`: for every op the compressor configures, the entry that decides
// it as prepare() resolves it, the eager parameters' specs, the projected size, the per-layer
// weight error measured on real weights, as a table, JSON or the treemap page.
#pragma once

#include "opscope/coreai/config/document.h"
#include "opscope/dialects/dialect.h"
#include "opscope/index/index.h"

#include <optional>
#include <string>

namespace opscope::coreai_explain {

// The mode coreai-opt applies `config` in: the palettizer and the pruner eager, the Quantizer
// as its execution_mode says (graph when it says nothing).
index::Mode runs_in(const config::ConfigDocument& config);

// Throws dialects::ExplainError when `config` cannot be explained on any model: no root key
// coreai-opt loads, an execution_mode it does not run, a --mode (`asked_mode`) it would not run.
void refuse(const config::ConfigDocument& config, const std::string& path,
            std::optional<index::Mode> asked_mode);

// The explanation itself (DialectDocument::explain).
int explain(const config::ConfigDocument& config, const dialects::ExplainRequest& request);

} // namespace opscope::coreai_explain
