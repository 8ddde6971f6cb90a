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

enum class Severity { Error, Warning, Information };

struct Fix {
  std::string title; // "Replace with `layer1.*`"
  TextEdit edit;
  bool replacement = true; // the edit replaces the key by a name (false: it moves an entry)
};

struct Diagnostic {
  config::Range range;
  Severity severity = Severity::Warning;
  std::string code; // stable id: "syntax", "no-match", "invalid-regex", ...
  std::string message;
  std::vector<Fix> fixes;
};

// Why there is no model to check against, said once at the top of the config.
struct ModelProblem {
  std::string message; // why, and what to do
  Severity severity = Severity::Warning;
  std::string code = "no-model"; // "untrusted-project": opscope would not run the project's code
};

// `model` may be null: the checks that need no model still run, and
// `model_problem` (if given) becomes one diagnostic on the first line.
std::vector<Diagnostic> diagnose(const config::ConfigDocument& document, const Model* model,
                                 const std::optional<ModelProblem>& model_problem = {});

const char* to_string(Severity severity);

} // namespace opscope::features
