// Options every model-reading sub-command shares (--mode, --compressor, --input, --python,
// --quiet, --no-cache) and the terminal settings of the summary (colour, width).
#pragma once

#include "opscope/cli/args.h"
#include "opscope/index/index.h"
#include "opscope/model/model_source.h"

#include <vector>

namespace opscope::cli {

std::vector<OptionSpec> model_options(bool with_compressor);

// Settings for opscope::model from --mode/--input/--python/--quiet/--no-cache.
// Throws UsageError for an unknown mode.
model::Settings model_settings(const ParsedArgs& args);

// --compressor (default none), checked against the mode (graph mode: quantizer only).
index::Compressor compressor_option(const ParsedArgs& args, index::Mode mode);

// Refuses a compressor the mode has no table for before any exporting or inspecting; an
// index file's own mode is checked after loading instead (unless --mode was given).
void check_compressor_early(const ParsedArgs& args, const model::Settings& settings,
                            const std::string& model);

// Colour when --color, never with --no-color; otherwise when stdout is a terminal and
// NO_COLOR is unset.
bool use_color(const ParsedArgs& args);

// The console width rich would use: --width, $COLUMNS, the terminal's, else 80.
int console_width(const ParsedArgs& args);

} // namespace opscope::cli
