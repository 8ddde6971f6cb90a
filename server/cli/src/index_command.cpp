#include "commands.h"
#include "opscope/cli/dispatch.h"
#include "opscope/cli/model_options.h"
#include "opscope/index/serialize.h"
#include "progress_line.h"

#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <unistd.h>

namespace opscope::cli {
namespace {

// Copies `from` to `to` through a temporary file and a rename, so a reader (the language
// server) never sees half a file.
void copy_into_place(const std::string& from, const std::string& to) {
  namespace fs = std::filesystem;
  const std::string temporary = to + ".tmp" + std::to_string(::getpid());
  std::error_code ec;
  fs::copy_file(from, temporary, fs::copy_options::overwrite_existing, ec);
  if (!ec)
    fs::rename(temporary, to, ec);
  if (ec) {
    fs::remove(temporary);
    throw std::runtime_error(to + ": cannot write the index file (" + ec.message() + ")");
  }
}

} // namespace

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
    const std::string& model = parsed.positionals[0];
    const std::string output = parsed.value("--output");
    if (model::classify(model) != model::ModelKind::IndexFile) {
      // The worker's cached file is already the index: copy it rather than parse and
      // re-serialise it (that was most of a cache hit on a 384-layer model). The language
      // server runs this on every start, so it is its warm-start path too.
      // index_path checks the entry against its recorded hash: a damaged one is rebuilt.
      // A first index exports and inspects the model: a progress line on a terminal.
      ProgressLine progress_line(settings.quiet);
      progress_line.attach(settings);
      copy_into_place(model::index_path(model, settings), output);
      progress_line.finish();
      if (!settings.quiet)
        std::cerr << "opscope: wrote " << output << " (" << index::to_string(settings.mode)
                  << " mode)\n";
      return kExitOk;
    }
    index::Index index = model::load_index(model, settings);
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
