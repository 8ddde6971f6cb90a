// The PEFT dialect's answers (core/dialects/peft) in the features' types: what the editor and
// `opscope check` show for LoraConfig calls, adapter_config.json and axolotl / LLaMA-Factory
// YAML. The rules are the dialect's; this file only converts.
#pragma once

#include "opscope/dialects/peft/peft.h"
#include "opscope/features/completion.h"
#include "opscope/features/diagnostics.h"
#include "opscope/features/hover.h"

#include <optional>
#include <vector>

namespace opscope::features {

using PeftConfigs = std::vector<dialects::peft::PeftConfig>;

// `model` null: only `problem` (why there is no model) and what needs none.
std::vector<Diagnostic> diagnose_peft(const PeftConfigs& configs, const index::Index* model,
                                      const std::optional<ModelProblem>& problem);
std::optional<Hover> hover_peft(const PeftConfigs& configs, const index::Index* model,
                                config::Position cursor);
CompletionList complete_peft(const PeftConfigs& configs, const index::Index* model,
                             config::Position cursor, const CompletionOptions& options = {});

} // namespace opscope::features
