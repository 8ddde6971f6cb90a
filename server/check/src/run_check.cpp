#include "opscope/check/run_check.h"

#include "check_host.h"
#include "report_format.h"

#include "opscope/project/project.h"

#include "opscope/cli/args.h"
#include "opscope/cli/dispatch.h"
#include "opscope/cli/model_options.h"
#include "opscope/config/positions.h"
#include "opscope/dialects/answers.h"
#include "opscope/index/query.h"
#include "opscope/model/model_source.h"
#include "opscope/model/process.h"
#include "opscope/support/regular_file.h"
#include "opscope/trust/consent.h"
#include "opscope/workspace/dialects.h"
#include "opscope/workspace/workspace.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <vector>

namespace fs = std::filesystem;

namespace opscope::check {
namespace {

cli::CommandSpec check_spec(std::size_t config_count) {
  cli::CommandSpec spec;
  spec.name = "check";
  spec.usage = "CONFIG... [options]";
  spec.summary = "check configs as the editor does: fields, values, names, overlaps";
  spec.details =
      "Prints the language server's diagnostics for each coreai-opt config (YAML, JSON, or\n"
      "the config calls of a .py file) as file:line:col: severity: message [code]. Exit 1\n"
      "when there is an error (or a warning with --strict). Without --model, the model\n"
      "comes from the opscope.yaml found by walking up from each config's folder. A Python\n"
      "model named there runs only once `opscope trust` allowed that opscope.yaml (or with\n"
      "--trust, for this run); without consent the config gets an `untrusted-project` error\n"
      "and nothing runs. A file that is no coreai-opt config at all is an error\n"
      "(opscope.yaml excepted; --only-configs skips such files).";
  spec.options = {{"--model", "-m", "M",
                   "the model: a .pt2 archive, an index file or a Python "
                   "target (default: opscope.yaml's `model`)"}};
  for (const cli::OptionSpec& o : cli::model_options(true))
    spec.options.push_back(o);
  spec.options.push_back({"--strict", "", "", "fail on warnings too"});
  spec.options.push_back({"--format", "", "F",
                          "text (default): file:line:col: severity: message [code]; json: one "
                          "JSON object per diagnostic and line (file, range with 1-based lines "
                          "and character columns, end exclusive, severity, code, message); "
                          "github: GitHub Actions annotations (workflow commands); sarif: one "
                          "SARIF 2.1.0 document, for code scanning"});
  spec.options.push_back({"--json", "", "", "the same as --format json"});
  spec.options.push_back({"--trust", "", "",
                          "run the Python model the project names, for this run only "
                          "(nothing is recorded)"});
  spec.options.push_back({"--only-configs", "", "",
                          "skip files that are not compression configs (no compressor root key "
                          "or pattern table; opscope.yaml): for pre-commit, which passes every "
                          "YAML and JSON file of a commit"});
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

// The project file describes the model; it configures no compressor.
bool is_project_file(const std::string& path) {
  return fs::path(path).filename() == project::kProjectFileName;
}

// 1-based columns in characters (UTF-8 code points) of byte columns, for one text: line
// starts found once (scanning from the top for each diagnostic was quadratic on a
// 50,000-key config with as many warnings).
class CharColumns {
public:
  explicit CharColumns(const std::string& text) : text_(text) {
    starts_.push_back(0);
    // A lone '\r' ends a line too, as for the config reader and LSP.
    for (std::size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n' || (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n')))
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

class Checker {
public:
  Checker(const cli::ParsedArgs& args, Reporter& reporter)
      : args_(args), reporter_(reporter), host_(args),
        // The language server's workspace, with the command line in the editor settings'
        // place, so `opscope check` and the editor give a config the same diagnostics.
        workspace_(host_, {command_line_overrides(args), fs::current_path().string(), true, true}) {
  }

  // Checks one config; returns false if it could not be read.
  bool check(const std::string& path) {
    constexpr std::uint64_t kMaxConfigBytes = std::uint64_t{256} << 20;
    workspace::Document doc;
    try {
      // Regular files only: a FIFO given as a config would block the check forever.
      doc.text = support::read_regular_file(path, kMaxConfigBytes);
    } catch (const support::FileReadError& e) {
      std::string why = std::string(e.what()).substr(path.size() + 2); // "PATH: why"
      std::cerr << path << ": cannot read this config file (" << why << "); check the path\n";
      ++errors_;
      return false;
    }
    if (args_.has("--only-configs") &&
        (is_project_file(path) ||
         !workspace::dialect_for(path, doc.text).read(path, doc.text)->why_not_a_config().empty()))
      return true;
    doc.path = fs::absolute(path).string();
    doc.uri = doc.path;
    workspace::Analysis analysis = workspace_.analyse(doc);
    ++checked_;
    for (const std::string& problem : analysis.resolution.project_problems)
      std::cerr << problem << "\n";

    CharColumns columns(doc.text);
    std::vector<dialects::Diagnostic> diagnostics = workspace_.diagnose(analysis);
    // configs/*.yaml also holds the project file, which is let through.
    if (const std::string why = analysis.document->why_not_a_config();
        diagnostics.empty() && !why.empty() && !is_project_file(path)) {
      // Asked to check it, yet nothing in it is a config: passing would hide a wrong path.
      std::cerr << path << ": " << why << "\n";
      ++errors_;
      return true;
    }
    for (const dialects::Diagnostic& d : diagnostics) {
      reporter_.add({path, d.range.start.line + 1, columns(d.range.start), d.range.end.line + 1,
                     columns(d.range.end), dialects::to_string(d.severity), d.code, d.message});
      if (d.severity == dialects::Severity::Error)
        ++errors_;
      else if (d.severity == dialects::Severity::Warning)
        ++warnings_;
    }
    return true;
  }

  int exit_code() {
    reporter_.finish();
    if (errors_ || warnings_)
      std::cerr << errors_ << (errors_ == 1 ? " error, " : " errors, ") << warnings_
                << (warnings_ == 1 ? " warning\n" : " warnings\n");
    else if (checked_ && !args_.has("--quiet")) // a CI log says what passed, not just nothing
      std::cerr << checked_ << (checked_ == 1 ? " config" : " configs")
                << " checked: no errors or warnings\n";
    return errors_ || (args_.has("--strict") && warnings_) ? cli::kExitUserError : cli::kExitOk;
  }

private:
  const cli::ParsedArgs& args_;
  Reporter& reporter_;
  CheckHost host_;
  workspace::Workspace workspace_;
  int errors_ = 0;
  int warnings_ = 0;
  int checked_ = 0; // read and analysed (not skipped by --only-configs)
};

// --format, or its older spelling --json.
ReportFormat report_format(const cli::ParsedArgs& args) {
  if (!args.has("--format"))
    return args.has("--json") ? ReportFormat::Json : ReportFormat::Text;
  std::optional<ReportFormat> format = parse_report_format(args.value("--format"));
  if (!format)
    throw cli::UsageError("--format " + args.value("--format") +
                          ": unknown format; use text, json, github or sarif");
  if (args.has("--json") && *format != ReportFormat::Json)
    throw cli::UsageError("--json and --format " + args.value("--format") +
                          " disagree; give one of them");
  return *format;
}

} // namespace

int run_check(const std::vector<std::string>& args) {
  return cli::guarded("check", [&] {
    cli::CommandSpec spec = check_spec(count_positionals(args));
    cli::ParsedArgs parsed = cli::parse_args(spec, args);
    if (parsed.help) {
      std::cout << cli::help_text(spec);
      return cli::kExitOk;
    }
    std::unique_ptr<Reporter> reporter = make_reporter(report_format(parsed), std::cout);
    Checker checker(parsed, *reporter);
    for (const std::string& config : parsed.positionals)
      checker.check(config);
    return checker.exit_code();
  });
}

} // namespace opscope::check
