// A dialect's answers (opscope/dialects/dialect.h: PEFT's, llm-compressor's, ...) in the
// features' types: what the editor and `opscope check` show for a config some dialect read.
// The rules are the dialect's; this file converts, and adds what every dialect shares: the
// model problem first, nothing model-dependent while no model is there, the completion limit.
#pragma once

#include "opscope/dialects/dialect.h"
#include "opscope/features/completion.h"
#include "opscope/features/diagnostics.h"
#include "opscope/features/hover.h"

#include <optional>
#include <vector>

namespace opscope::features {

// `model` null: only `problem` (why there is no model) and what needs none.
std::vector<Diagnostic> diagnose_dialect(const dialects::DialectDocument& document,
                                         const index::Index* model,
                                         const std::optional<ModelProblem>& problem);
std::optional<Hover> hover_dialect(const dialects::DialectDocument& document,
                                   const index::Index* model, config::Position cursor);
CompletionList complete_dialect(const dialects::DialectDocument& document,
                                const index::Index* model, config::Position cursor,
                                const CompletionOptions& options = {});

} // namespace opscope::features
