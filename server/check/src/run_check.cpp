#include "opscope/check/run_check.h"

#include "opscope/project/project.h"

#include "opscope/cli/args.h"
#include "opscope/cli/dispatch.h"
#include "opscope/cli/model_options.h"
#include "opscope/config/document.h"
#include "opscope/features/diagnostics.h"
#include "opscope/index/query.h"
#include "opscope/model/model_source.h"
#include "opscope/support/regular_file.h"
#include "opscope/trust/consent.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <vector>

namespace fs = std::filesystem;

namespace opscope::check {
namespace {

cli::CommandSpec check_spec(std::size_t config_count) {
  cli::CommandSpec spec;
  spec.name = "check";
  spec.usage = "CONFIG... [options]";
  spec.summary = "report config patterns that match nothing";
  spec.details =
      "Prints the language server's diagnostics for each coreai-opt config (YAML or JSON) as\n"
      "file:line:col: severity: message [code]. Exit 1 when there is an error (or a warning\n"
      "with --strict). Without --model, the model comes from the opscope.yaml found by\n"
      "walking up from each config's folder. A Python model named there runs only once\n"
      "`opscope trust` allowed that opscope.yaml (or with --trust, for this run); without\n"
      "consent the config gets an `untrusted-project` error and nothing runs.";
  spec.options = {{"--model", "-m", "M",
                   "the model: a .pt2 archive, an index file or a Python "
                   "target (default: opscope.yaml's `model`)"}};
  for (const cli::OptionSpec& o : cli::model_options(true))
    spec.options.push_back(o);
  spec.options.push_back({"--strict", "", "", "fail on warnings too"});
  spec.options.push_back({"--trust", "", "",
                          "run the Python model the project names, for this run only "
                          "(nothing is recorded)"});
  spec.positionals.assign(std::max<std::size_t>(config_count, 1), "CONFIG");
  return spec;
}

// How many positionals `args` holds, so the parser can take any number of configs.
std::size_t count_positionals(const std::vector<std::string>& args) {
  cli::CommandSpec spec = check_spec(1);
  std::size_t count = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      count += args.size() - i - 1;
      break;
    }
    if (a.size() < 2 || a[0] != '-') {
      ++count;
      continue;
    }
    if (a.find('=') != std::string::npos)
      continue;
    for (const cli::OptionSpec& o : spec.options)
      if ((a == o.name || (!o.alias.empty() && a == o.alias)) && !o.metavar.empty())
        ++i; // its value
  }
  return count;
}

// 1-based columns in characters (UTF-8 code points) of byte columns, for one text: line
// starts found once (scanning from the top for each diagnostic was quadratic on a
// 50,000-key config with as many warnings).
class CharColumns {
public:
  explicit CharColumns(const std::string& text) : text_(text) {
    starts_.push_back(0);
    for (std::size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n')
        starts_.push_back(i + 1);
  }
  int operator()(config::Position p) const {
    if (p.line < 0 || static_cast<std::size_t>(p.line) >= starts_.size())
      return p.byte_col + 1;
    std::size_t start = starts_[static_cast<std::size_t>(p.line)];
    std::size_t end = std::min(text_.size(), start + static_cast<std::size_t>(p.byte_col));
    int chars = 0;
    for (std::size_t i = start; i < end; ++i)
      if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80)
        ++chars;
    return chars + 1;
  }

private:
  const std::string& text_;
  std::vector<std::size_t> starts_;
};

struct Loaded {
  std::unique_ptr<index::Index> index;
  std::unique_ptr<index::QueryEngine> queries; // over `index`: built once, shared by all configs
  std::string error;
};

class Checker {
public:
  explicit Checker(const cli::ParsedArgs& args) : args_(args) {}

  // Checks one config; returns false if it could not be read.
  bool check(const std::string& path) {
    constexpr std::uint64_t kMaxConfigBytes = std::uint64_t{256} << 20;
    std::string text;
    try {
      // Regular files only: a FIFO given as a config would block the check forever.
      text = support::read_regular_file(path, kMaxConfigBytes);
    } catch (const support::FileReadError& e) {
      std::string why = std::string(e.what()).substr(path.size() + 2); // "PATH: why"
      std::cerr << path << ": cannot read this config file (" << why << "); check the path\n";
      ++errors_;
      return false;
    }
    config::ConfigDocument doc = config::read_config(text, config::guess_format(path, text));

    // The language server's resolver, with the command line in the editor settings' place, so
    // `opscope check` and the editor pick the same model, mode and compressor for a config.
    std::string cwd = fs::current_path().string();
    project::ConfigHints hints{config::compressor_name(doc.root), doc.execution_mode};
    project::Resolution resolved =
        project::resolve_model(fs::absolute(path).string(), hints, command_line_settings(), cwd);
    for (const std::string& problem : resolved.project_problems)
      std::cerr << problem << "\n";

    // The command line is the user's own choice; what the project file decides needs consent.
    trust::Need need = trust::consent_needed(resolved, command_line_settings(), true, cwd);

    std::optional<features::ModelProblem> problem;
    features::Model model;
    index::Compressor compressor = resolved.compressor;
    model::Settings settings = cli::model_settings(args_);
    std::string source;
    if (resolved.model) {
      const project::ModelSpec& spec = *resolved.model;
      source = spec.kind == project::ModelKind::PythonTarget ? spec.target : spec.path;
      settings.mode = spec.mode;
      settings.mode_given = true;
      settings.inputs = spec.inputs;
      settings.python = spec.python;
    }

    if (source.empty()) {
      problem = features::ModelProblem{
          resolved.project_file.empty()
              ? "no model to check names against: pass --model MODEL, or create an opscope.yaml "
                "next to the config with `model: path/to/model.pt2`"
              : resolved.problem,
          features::Severity::Error};
    } else if (need.needed() && !args_.has("--trust") && !trust::is_trusted(need, store_)) {
      std::string text = need.what_would_run() +
                         "; opscope runs a project's code only with "
                         "your consent: run `opscope trust " +
                         need.project_file + "` (or pass --trust for this run) to allow it";
      if (need.unreadable_project)
        text = need.what_would_run() + "; " + need.project_file + " cannot be read";
      if (!store_.problem().empty())
        text += " (" + store_.problem() + ")";
      problem = features::ModelProblem{text, features::Severity::Error, "untrusted-project"};
    } else if (!index::mode_supports(settings.mode, compressor)) {
      problem = features::ModelProblem{std::string("coreai-opt's ") + index::to_string(compressor) +
                                           " does not run in " + index::to_string(settings.mode) +
                                           " mode: set execution_mode (or --mode) to eager",
                                       features::Severity::Error};
    } else {
      const Loaded& loaded = load(source, settings);
      if (loaded.index) {
        model.index = loaded.index.get();
        model.queries = loaded.queries.get();
        model.compressor = compressor;
      } else {
        problem = features::ModelProblem{"cannot load the model: " + loaded.error,
                                         features::Severity::Error};
      }
    }
    CharColumns columns(doc.text); // the reader's text: a lone CR ends a line there too
    for (const features::Diagnostic& d :
         features::diagnose(doc, model.index ? &model : nullptr, problem)) {
      std::cout << path << ":" << d.range.start.line + 1 << ":" << columns(d.range.start) << ": "
                << features::to_string(d.severity) << ": " << d.message << " [" << d.code << "]\n";
      if (d.severity == features::Severity::Error)
        ++errors_;
      else if (d.severity == features::Severity::Warning)
        ++warnings_;
    }
    return true;
  }

  int exit_code() const {
    if (errors_ || warnings_)
      std::cerr << errors_ << (errors_ == 1 ? " error, " : " errors, ") << warnings_
                << (warnings_ == 1 ? " warning\n" : " warnings\n");
    return errors_ || (args_.has("--strict") && warnings_) ? cli::kExitUserError : cli::kExitOk;
  }

private:
  // The command line's model flags, as overrides of the project file (editor settings' role).
  project::ModelSettings command_line_settings() const {
    project::ModelSettings settings;
    if (args_.has("--model"))
      settings.model = args_.value("--model");
    if (args_.has("--input"))
      settings.inputs = args_.all("--input");
    if (args_.has("--python"))
      settings.python = args_.value("--python");
    if (args_.has("--mode"))
      settings.mode = args_.value("--mode");
    if (args_.has("--compressor")) {
      // An unknown name is a usage error here, not a silently ignored setting.
      cli::compressor_option(args_, index::Mode::Eager);
      settings.compressor = args_.value("--compressor");
    }
    return settings;
  }

  const Loaded& load(const std::string& source, const model::Settings& settings) {
    auto key = std::make_pair(source, settings.mode);
    auto it = loaded_.find(key);
    if (it != loaded_.end())
      return it->second;
    Loaded result;
    try {
      result.index = std::make_unique<index::Index>(model::load_index(source, settings));
      result.queries = std::make_unique<index::QueryEngine>(*result.index);
    } catch (const std::exception& e) {
      result.error = e.what();
    }
    return loaded_.emplace(key, std::move(result)).first->second;
  }

  const cli::ParsedArgs& args_;
  trust::Store store_{trust::Store::default_file()};
  std::map<std::pair<std::string, index::Mode>, Loaded> loaded_;
  int errors_ = 0;
  int warnings_ = 0;
};

} // namespace

int run_check(const std::vector<std::string>& args) {
  return cli::guarded("check", [&] {
    cli::CommandSpec spec = check_spec(count_positionals(args));
    cli::ParsedArgs parsed = cli::parse_args(spec, args);
    if (parsed.help) {
      std::cout << cli::help_text(spec);
      return cli::kExitOk;
    }
    Checker checker(parsed);
    for (const std::string& config : parsed.positionals)
      checker.check(config);
    return checker.exit_code();
  });
}

} // namespace opscope::check
