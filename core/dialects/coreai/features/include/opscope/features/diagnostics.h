// Diagnostics for a config: syntax, duplicate keys, regexes RE2 rejects or
// cannot evaluate, module types that are not fully qualified, op types the
// compressor does not compress, and patterns that match nothing (with the
// nearest real names as fixes).
#pragma once

#include "opscope/features/model.h"

#include <optional>
#include <string>
#include <vector>

namespace opscope::features {

using dialects::Diagnostic;
using dialects::Fix;
using dialects::ModelProblem;
using dialects::Severity;
using dialects::to_string;

// `model` may be null: the checks that need no model still run, and
// `model_problem` (if given) becomes one diagnostic on the first line.
std::vector<Diagnostic> diagnose(const config::ConfigDocument& document, const Model* model,
                                 const std::optional<ModelProblem>& model_problem = {});

} // namespace opscope::features
