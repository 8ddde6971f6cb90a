// `opscope check CONFIG... [--model M] [--mode M] [--compressor C] [--strict]`:
// the language server's config diagnostics for CI, one per line as
// `file:line:col: severity: message [code]` (1-based line and column, the column
// in characters). Exit 1 when any error is reported (or any warning with
// --strict), 0 otherwise, 2 for a bad command line.
//
// The model comes from --model, else from the `opscope.yaml` found by walking
// up from each config's folder (keys: model, inputs, python, mode, compressor;
// paths relative to the project file). The compressor follows --compressor,
// else the config's root key, else the project; the mode follows --mode, else
// the config's execution_mode, else the project, else graph.
#pragma once

#include <string>
#include <vector>

namespace opscope::check {

int run_check(const std::vector<std::string>& args);

} // namespace opscope::check
