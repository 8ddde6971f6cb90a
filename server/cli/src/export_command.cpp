#include "commands.h"
#include "opscope/cli/dispatch.h"
#include "opscope/cli/model_options.h"
#include "progress_line.h"

#include <iostream>

namespace opscope::cli {
namespace {

// The modes the archive serves, graph first, each once: `--mode graph --mode eager` is one
// archive with both the program and the eager record (default: graph).
std::vector<index::Mode> export_modes(const ParsedArgs& parsed) {
  bool graph = !parsed.has("--mode");
  bool eager = false;
  for (const std::string& text : parsed.all("--mode")) {
    auto mode = index::parse_mode(text);
    if (!mode)
      throw UsageError("--mode '" + text +
                       "': use graph or eager (both: --mode graph --mode eager)");
    (*mode == index::Mode::Graph ? graph : eager) = true;
  }
  std::vector<index::Mode> modes;
  if (graph)
    modes.push_back(index::Mode::Graph);
  if (eager)
    modes.push_back(index::Mode::Eager);
  return modes;
}

} // namespace

int run_export(const std::vector<std::string>& args) {
  return guarded("export", [&] {
    CommandSpec spec{"export",
                     "TARGET [--input SPEC]... [--mode graph] [--mode eager] -o MODEL.pt2 "
                     "[options]",
                     "Export a Python model to a torch.export archive with your own Python "
                     "(the only command that runs your code).",
                     "TARGET is package.module:factory or path/to/file.py:factory; the factory "
                     "returns the nn.Module\n(or (module, example_args)). hf:CONFIG builds a "
                     "Hugging Face architecture from its\nconfig.json (a file, its folder, or "
                     "a model id in the local Hugging Face cache; never downloaded).\nThe model is "
                     "built without weight data (fake tensors: the same names, shapes and\n"
                     "dtypes) unless --with-weights; hf:CONFIG targets always are.",
                     {},
                     {"TARGET"}};
    spec.options.push_back(
        {"--mode", "", "M",
         "graph (default): the torch.export archive, for --mode graph; eager: run the model "
         "once to record what coreai-opt's eager mode sees (extra/opscope_eager.json), for "
         "--mode eager only (no torch.export, so it is several times faster); both (--mode "
         "graph --mode eager): one archive that serves both modes",
         true});
    for (auto option : model_options(false))
      if (option.name == "--input" || option.name == "--python" || option.name == "--quiet" ||
          option.name == "--with-weights" || option.name == "--weightless" ||
          option.name == "--hf-class")
        spec.options.push_back(option);
    spec.options.push_back({"--output", "-o", "MODEL.pt2", "archive to write (required)"});
    spec.options.push_back({"--json", "", "", "print the helper's JSON description on stdout"});
    ParsedArgs parsed = parse_args(spec, args);
    if (parsed.help) {
      std::cout << help_text(spec);
      return kExitOk;
    }
    if (!parsed.has("--output"))
      throw UsageError("missing -o MODEL.pt2 (the archive to write)");
    model::Settings settings = model_settings(parsed);
    const std::vector<index::Mode> modes = export_modes(parsed);
    const std::string output = parsed.value("--output");
    const std::string what = "exporting " + parsed.positionals[0] + " with " +
                             model::python_interpreter(settings) + " ...";
    ProgressLine progress_line(settings.quiet);
    if (progress_line.active())
      progress_line.phase(what);
    else if (!settings.quiet)
      std::cerr << "opscope: " << what << "\n";
    std::string description = model::export_archive(parsed.positionals[0], settings, output, modes);
    progress_line.finish();
    if (parsed.has("--json"))
      std::cout << description << "\n";
    else if (!settings.quiet)
      std::cerr << "opscope: wrote " << output << "\n";
    return kExitOk;
  });
}

} // namespace opscope::cli
