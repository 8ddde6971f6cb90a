#include "commands.h"
#include "opscope/cli/dispatch.h"
#include "opscope/cli/model_options.h"
#include "opscope/format/summary.h"

#include <iostream>

namespace opscope::cli {
namespace {

CommandSpec summary_spec() {
  CommandSpec spec{"summary",
                   "MODEL [options]",
                   "Print the model's module tree with every op, its connectivity and source "
                   "line, exactly as coreai-opt's ModelInspector.format_summary() prints it.",
                   "MODEL is a .pt2 archive (torch.export.save), an index file (opscope index),\n"
                   "or a Python target (model.py:build or package.module:build) with --input.",
                   model_options(true),
                   {"MODEL"}};
  spec.options.push_back({"--json", "", "", "print the tree as JSON"});
  spec.options.push_back({"--color", "", "", "colour even when stdout is not a terminal"});
  spec.options.push_back({"--no-color", "", "", "never colour (also: NO_COLOR=1)"});
  spec.options.push_back(
      {"--width", "", "N", "console columns to wrap at (default: terminal, 80)"});
  return spec;
}

} // namespace

int run_summary(const std::vector<std::string>& args) {
  return guarded("summary", [&] {
    CommandSpec spec = summary_spec();
    ParsedArgs parsed = parse_args(spec, args);
    if (parsed.help) {
      std::cout << help_text(spec);
      return kExitOk;
    }
    model::Settings settings = model_settings(parsed);
    format::SummaryOptions options;
    options.width = console_width(parsed);
    options.color = use_color(parsed);
    check_compressor_early(parsed, settings, parsed.positionals[0]);
    index::Index index = model::load_index(parsed.positionals[0], settings);
    options.compressor = compressor_option(parsed, index.mode);
    if (!index.provenance.untraced.empty()) // said on every run, not only the export's
      std::cerr << "opscope: " << parsed.positionals[0]
                << ": no graph, its modules only: " << index.provenance.untraced << "\n";
    if (parsed.has("--json"))
      std::cout << format::summary_json(index, options).dump(2) << "\n";
    else
      std::cout << format::format_summary(index, options) << "\n";
    return kExitOk;
  });
}

} // namespace opscope::cli
