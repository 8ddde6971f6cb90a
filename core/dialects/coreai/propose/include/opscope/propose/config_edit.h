// The text side of a proposal (`opscope propose`, the editor's code action): a config with
// module_name_configs entries appended (the last entries of that table win in coreai-opt's
// resolution, resolve.h), and what changed: a unified diff for the command line, one line
// range for the editor's edit. YAML block mappings are edited in place, line by line, so the
// rest of the file stays as written; JSON is written back from its values (indent 2).
#pragma once

#include "opscope/coreai/config/document.h"

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <vector>

namespace opscope::propose {

struct ProposedEntry {
  std::string module;           // the module's name; written as an exact pattern
  nlohmann::ordered_json value; // its module config
};

// A config this edit cannot write (Python, flow-style YAML): the message says what to do.
class EditError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// The regular expression that matches exactly `module` (coreai-opt full-matches name keys).
std::string exact_pattern(const std::string& module);

// `document.text` with `entries` appended, in order, at the end of the Quantizer's
// module_name_configs (created when absent). `document` is a quantization_config read
// without problems.
std::string with_entries(const config::ConfigDocument& document,
                         const std::vector<ProposedEntry>& entries);

// The lines that differ between `before` and `after`: the lines `before` has between their
// common head and tail (`replaced`, lines [start.line, end.line), byte column 0; end.line may
// be one past the last line) become `text`.
struct LineChange {
  config::Range replaced;
  std::string text;
};
LineChange changed_lines(const std::string& before, const std::string& after);

// Whether with_entries can write into `document` (else it throws EditError saying why).
bool can_append(const config::ConfigDocument& document);

// A unified diff (one hunk: the lines between the common head and tail), "" when equal.
std::string unified_diff(const std::string& before, const std::string& after,
                         const std::string& path);

} // namespace opscope::propose
