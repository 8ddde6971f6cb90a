#include "opscope/cli/model_options.h"

#include <cstdlib>
#include <sys/ioctl.h>
#include <unistd.h>

namespace opscope::cli {
namespace {

// The compressors coreai-opt runs in `mode`: "quantizer", "quantizer and x".
std::string supported_in(index::Mode mode) {
  std::string out;
  for (const coreai::CompressorInfo& c : coreai::compressors())
    if (index::mode_supports(mode, c.id))
      out += (out.empty() ? "" : " and ") + std::string(c.name);
  return out;
}

} // namespace

std::vector<OptionSpec> model_options(bool with_compressor) {
  std::vector<OptionSpec> options = {
      {"--mode", "", "M", "graph (default) or eager: how coreai-opt will see the model"},
      {"--input", "-i", "SPEC",
       "example input for a Python target, one per forward() argument: 1x3x224x224, "
       "1x8:int64, 1x8:int64:0..100",
       true},
      {"--python", "", "PATH",
       "Python to export with (default: opscope.yaml's python:, else $VIRTUAL_ENV/bin/python, "
       "else for a project's model the nearest .venv above it, else python3)"},
      {"--with-weights", "", "",
       "export a Python target with real (random) weights, for a model that reads tensor "
       "values; by default it is built on fake tensors without weight data (same names, shapes "
       "and dtypes; a model that needs data falls back to weights with a warning); hf:CONFIG "
       "targets are always weightless"},
      {"--weightless", "", "", "the default (accepted so older command lines still work)"},
      {"--hf-class", "", "CLASS",
       "for hf:CONFIG targets: the transformers class to build (AutoModelForCausalLM, "
       "LlamaModel, ...)"},
      {"--quiet", "-q", "", "no progress messages on stderr"},
      {"--no-cache", "", "", "re-export and re-inspect even when a cached index exists"},
  };
  if (with_compressor)
    options.insert(options.begin() + 1,
                   {"--compressor", "-c", "C",
                    coreai::compressor_names(", ") +
                        " or none (default): show only the ops this compressor registers"});
  return options;
}

model::Settings model_settings(const ParsedArgs& args) {
  model::Settings settings;
  if (args.has("--mode")) {
    auto mode = index::parse_mode(args.value("--mode"));
    if (!mode)
      throw UsageError("--mode '" + args.value("--mode") + "': use graph or eager");
    settings.mode = *mode;
    settings.mode_given = true;
  }
  settings.inputs = args.all("--input");
  settings.python = args.value("--python");
  settings.quiet = args.has("--quiet");
  settings.use_cache = !args.has("--no-cache");
  if (args.has("--with-weights") && args.has("--weightless"))
    throw UsageError("--with-weights and --weightless contradict each other; give one");
  settings.weightless = !args.has("--with-weights");
  settings.hf_class = args.value("--hf-class");
  return settings;
}

index::Compressor compressor_option(const ParsedArgs& args, index::Mode mode) {
  if (!args.has("--compressor"))
    return index::Compressor::None;
  auto compressor = index::parse_compressor(args.value("--compressor"));
  if (!compressor)
    throw UsageError("--compressor '" + args.value("--compressor") + "': use " +
                     coreai::compressor_names(", ") + " or none");
  if (!index::mode_supports(mode, *compressor))
    throw UsageError(std::string("--compressor ") + index::to_string(*compressor) +
                     " has no op table in " + index::to_string(mode) + " mode (coreai-opt's " +
                     index::to_string(mode) + " mode supports only the " + supported_in(mode) +
                     "); add --mode " + index::to_string(coreai::default_mode(*compressor)));
  return *compressor;
}

void check_compressor_early(const ParsedArgs& args, const model::Settings& settings,
                            const std::string& model) {
  bool index_file = false;
  try {
    index_file = model::classify(model) == model::ModelKind::IndexFile;
  } catch (const model::ModelError&) {
    // A bad model is reported when it is loaded; a bad command line comes first.
  }
  if (settings.mode_given || !index_file)
    compressor_option(args, settings.mode);
}

bool use_color(const ParsedArgs& args) {
  if (args.has("--no-color"))
    return false;
  if (args.has("--color"))
    return true;
  const char* no_color = std::getenv("NO_COLOR");
  return ::isatty(STDOUT_FILENO) && !(no_color && *no_color);
}

int console_width(const ParsedArgs& args) {
  if (args.has("--width")) {
    try {
      int width = std::stoi(args.value("--width"));
      if (width > 0)
        return width;
    } catch (const std::exception&) {
    }
    throw UsageError("--width '" + args.value("--width") + "': give a number of columns");
  }
  // As rich's Console: $COLUMNS wins, then the first standard stream that is a terminal.
  if (const char* columns = std::getenv("COLUMNS"); columns && *columns) {
    bool digits = true;
    for (const char* c = columns; *c; ++c)
      digits = digits && *c >= '0' && *c <= '9';
    if (digits)
      return std::atoi(columns);
  }
  for (int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
    winsize size{};
    if (::isatty(fd) && ::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
      return size.ws_col;
  }
  return 80;
}

} // namespace opscope::cli
