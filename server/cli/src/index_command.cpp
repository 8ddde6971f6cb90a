#include "commands.h"
#include "opscope/cli/dispatch.h"
#include "opscope/cli/model_options.h"
#include "opscope/index/serialize.h"

#include <iostream>

namespace opscope::cli {

int run_index(const std::vector<std::string>& args) {
  return guarded("index", [&] {
    CommandSpec spec{"index",
                     "MODEL -o FILE [options]",
                     "Inspect the model once (with the opscope-inspect worker) and write its "
                     "index file; every other command reads an index file as fast as a cached "
                     "archive.",
                     "",
                     model_options(false),
                     {"MODEL"}};
    spec.options.push_back({"--output", "-o", "FILE", "where to write the index (required)"});
    ParsedArgs parsed = parse_args(spec, args);
    if (parsed.help) {
      std::cout << help_text(spec);
      return kExitOk;
    }
    if (!parsed.has("--output"))
      throw UsageError("missing -o FILE (where to write the index)");
    model::Settings settings = model_settings(parsed);
    index::Index index = model::load_index(parsed.positionals[0], settings);
    const std::string output = parsed.value("--output");
    try {
      index::save_index(index, output);
    } catch (const index::IndexFormatError& e) {
      throw std::runtime_error(e.what());
    }
    if (!settings.quiet)
      std::cerr << "opscope: wrote " << output << " (" << index.ops.size() << " ops, "
                << index.modules.size() << " modules, " << index::to_string(index.mode)
                << " mode)\n";
    return kExitOk;
  });
}

} // namespace opscope::cli
