#include "opscope/trust/run_trust.h"

#include "opscope/cli/args.h"
#include "opscope/cli/dispatch.h"
#include "opscope/trust/consent.h"
#include "opscope/trust/store.h"

#include <filesystem>
#include <iostream>

namespace opscope::trust {
namespace fs = std::filesystem;
namespace {

cli::CommandSpec trust_spec(bool with_path) {
  cli::CommandSpec spec;
  spec.name = "trust";
  spec.usage = "[PATH] [options]";
  spec.summary = "allow opscope to run what a project's opscope.yaml names";
  spec.details =
      "A Python model (model.py:build) is exported by running an interpreter on the project's\n"
      "code. opscope runs it for an opscope.yaml only after `opscope trust` recorded consent for\n"
      "that file's exact content (in $XDG_CONFIG_HOME/opscope/trusted.json); editing the file\n"
      "revokes it. PATH is an opscope.yaml or a folder (default: the nearest opscope.yaml above\n"
      "the current folder). Archives and index files are data and need no consent.";
  spec.options = {{"--list", "", "", "list what is trusted, and whether it changed since"},
                  {"--revoke", "", "", "forget the consent for PATH"}};
  if (with_path)
    spec.positionals = {"PATH"};
  return spec;
}

// The project file PATH means, or a UsageError-free user error.
std::string project_file_of(const std::string& path) {
  std::string start = path.empty() ? fs::current_path().string() : path;
  std::error_code ec;
  if (!path.empty() && !fs::is_directory(start, ec)) {
    if (fs::path(start).filename() != project::kProjectFileName)
      throw std::runtime_error(start + " is not an opscope.yaml: pass the project file or its "
                                       "folder");
    if (!fs::is_regular_file(start, ec))
      throw std::runtime_error(start + ": no such file");
    return fs::absolute(start).lexically_normal().string();
  }
  auto found = project::find_project_file(start);
  if (!found)
    throw std::runtime_error("no opscope.yaml in " + fs::absolute(start).string() +
                             " or a folder above it: pass the project file's path");
  return *found;
}

int list(const Store& store) {
  std::vector<Entry> entries = store.entries();
  if (entries.empty()) {
    std::cout << "nothing is trusted (" << store.file() << ")\n";
    return cli::kExitOk;
  }
  for (const Entry& entry : entries) {
    std::string state;
    if (entry.key.rfind(kEditorSettingsPrefix, 0) != 0) {
      auto now = project_file_subject(entry.key, "");
      state = !now ? "  [missing]" : now->sha256 != entry.sha256 ? "  [changed: not trusted]" : "";
    }
    std::cout << entry.key << state << "\n  runs " << entry.runs << "\n  trusted "
              << entry.trusted_at << "\n";
  }
  return cli::kExitOk;
}

} // namespace

int run_trust(const std::vector<std::string>& args) {
  return cli::guarded("trust", [&] {
    bool has_path = false;
    for (const std::string& arg : args)
      has_path |= !arg.empty() && arg[0] != '-';
    cli::CommandSpec spec = trust_spec(has_path);
    cli::ParsedArgs parsed = cli::parse_args(spec, args);
    if (parsed.help) {
      std::cout << cli::help_text(spec);
      return cli::kExitOk;
    }
    Store store(Store::default_file());
    if (parsed.has("--list")) {
      if (has_path || parsed.has("--revoke"))
        throw cli::UsageError("--list takes no PATH and no --revoke");
      return list(store);
    }
    std::string file = project_file_of(has_path ? parsed.positionals[0] : "");
    if (parsed.has("--revoke")) {
      bool was = store.revoke(file);
      std::cout << (was ? "no longer trusted: " : "was not trusted: ") << file << "\n";
      return cli::kExitOk;
    }
    Need need = project_file_need(file);
    if (need.unreadable_project)
      throw std::runtime_error(file + " cannot be read, so it cannot be trusted");
    std::string runs = need.subjects.empty() ? "nothing (its model is data)" : need.runs();
    auto subject = project_file_subject(file, runs);
    if (!subject)
      throw std::runtime_error(file + " cannot be read, so it cannot be trusted");
    std::cout << "trusting " << file << " (sha256 " << subject->sha256.substr(0, 12) << "…)\n";
    if (need.subjects.empty()) {
      std::cout << "  it names no Python model; nothing runs for it today\n";
    } else {
      std::cout << "  model:       " << need.model << "\n  interpreter: " << need.interpreter
                << "\n";
      if (!need.inputs.empty()) {
        std::cout << "  inputs:     ";
        for (const std::string& input : need.inputs)
          std::cout << " " << input;
        std::cout << "\n";
      }
    }
    store.allow(*subject);
    std::cout << "recorded in " << store.file() << "; editing " << project::kProjectFileName
              << " revokes it (`opscope trust --revoke` does too)\n";
    return cli::kExitOk;
  });
}

} // namespace opscope::trust
