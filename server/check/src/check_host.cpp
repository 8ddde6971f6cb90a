#include "check_host.h"

#include "opscope/cli/model_options.h"
#include "opscope/model/process.h"
#include "opscope/trust/consent.h"

#include <filesystem>
#include <iostream>
#include <memory>

namespace fs = std::filesystem;

namespace opscope::check {

project::ModelSettings command_line_overrides(const cli::ParsedArgs& args) {
  project::ModelSettings settings;
  if (args.has("--model"))
    settings.model = args.value("--model");
  if (args.has("--input"))
    settings.inputs = args.all("--input");
  if (args.has("--python"))
    settings.python = args.value("--python");
  if (args.has("--mode"))
    settings.mode = args.value("--mode");
  if (args.has("--with-weights") && args.has("--weightless"))
    throw cli::UsageError("--with-weights and --weightless contradict each other; give one");
  if (args.has("--with-weights"))
    settings.weightless = false;
  else if (args.has("--weightless"))
    settings.weightless = true;
  if (args.has("--hf-class"))
    settings.hf_class = args.value("--hf-class");
  if (args.has("--compressor")) {
    // An unknown name is a usage error here, not a silently ignored setting.
    cli::compressor_option(args, index::Mode::Eager);
    settings.compressor = args.value("--compressor");
  }
  return settings;
}

model::Settings load_settings(const project::ModelSpec& spec, const cli::ParsedArgs& args) {
  model::Settings settings = cli::model_settings(args);
  settings.mode = spec.mode;
  settings.mode_given = true;
  settings.inputs = spec.inputs;
  settings.python = spec.python;
  settings.weightless = spec.weightless;
  settings.hf_class = spec.hf_class;
  return settings;
}

const std::string& model_source(const project::ModelSpec& spec) {
  return spec.kind == project::ModelKind::PythonTarget ? spec.target : spec.path;
}

const workspace::Model* CheckHost::ensure(const project::ModelSpec& spec) {
  auto [it, inserted] = loaded_.try_emplace(spec.key());
  workspace::Model& model = it->second;
  if (!inserted)
    return &model;
  model.spec = spec;
  try {
    auto index = std::make_shared<const index::Index>(
        model::load_index(model_source(spec), load_settings(spec, args_)));
    model.queries = std::make_shared<const index::QueryEngine>(*index); // shared by all configs
    model.index = std::move(index);
    model.state = workspace::ModelState::Ready;
  } catch (const std::exception& e) {
    model.error = e.what();
    model.state = workspace::ModelState::Failed;
  }
  return &model;
}

bool CheckHost::allows(const trust::Need& need) {
  return !need.needed() || args_.has("--trust") || trust::is_trusted(need, store_);
}

std::string CheckHost::untrusted_message(const trust::Need& need) const {
  // A config naming its own base model (no opscope.yaml) has no file `opscope trust` could
  // record: --trust, or the environment activated by the user, which needs no consent.
  std::string how = need.project_file.empty()
                        ? "pass --trust to allow it for this run, or activate that environment "
                          "yourself (an activated $VIRTUAL_ENV needs no consent)"
                        : "run `opscope trust " + need.project_file +
                              "` (or pass --trust for this run) to allow it";
  std::string text =
      need.what_would_run() + "; opscope runs a project's code only with your consent: " + how;
  if (need.unreadable_project)
    text = need.what_would_run() + "; " + need.project_file + " cannot be read";
  if (!store_.problem().empty())
    text += " (" + store_.problem() + ")";
  return text;
}

void CheckHost::make_schema_dump(const workspace::SchemaDump& dump) {
  if (!dumped_.insert(dump.key()).second)
    return;
  std::error_code ec;
  fs::create_directories(fs::path(dump.path).parent_path(), ec);
  model::ProcessResult run = model::run_process(
      model::schema_dump_command(dump.python, dump.temporary()),
      std::chrono::duration_cast<std::chrono::milliseconds>(workspace::kSchemaDumpTimeout));
  std::optional<std::string> why;
  if (!run.started)
    why = "it cannot run (" + run.start_error + ")";
  else if (run.timed_out)
    why = "it ran longer than " + std::to_string(workspace::kSchemaDumpTimeout.count()) +
          " s and was stopped";
  else if (run.signal != 0)
    why = "Python crashed with " + model::describe_signal(run.signal);
  else if (run.exit_code != 0)
    why = model::last_line(run.stderr_text).empty()
              ? "the export helper failed (exit code " + std::to_string(run.exit_code) + ")"
              : model::last_line(run.stderr_text);
  else
    why = workspace::install_schema_dump(dump);
  if (!run.ok())
    fs::remove(dump.temporary(), ec);
  if (why)
    std::cerr << "opscope: warning: "
              << workspace::schema_dump_failure(dump, *why,
                                                model::schema_dump_command(dump.python, dump.path))
              << "\n";
}

} // namespace opscope::check
