#include "opscope/trust/consent.h"

#include <cstdlib>
#include <filesystem>

namespace opscope::trust {
namespace fs = std::filesystem;

namespace {

// `path` relative to `dir` when inside it: what a user recognises in their repository.
std::string shown_path(const std::string& path, const std::string& dir) {
  if (dir.empty() || path.rfind(dir + "/", 0) != 0)
    return path;
  return path.substr(dir.size() + 1);
}

// A .venv found by walking up from the config (default_python), not the one the user activated.
bool is_repository_interpreter(const std::string& python) {
  if (python.find("/.venv/bin/") == std::string::npos)
    return false;
  const char* venv = std::getenv("VIRTUAL_ENV");
  return !(venv && *venv && fs::path(python) == fs::path(venv) / "bin" / "python");
}

} // namespace

std::string Need::runs() const {
  std::string text = model + " with " + interpreter;
  if (!inputs.empty()) {
    text += ", inputs";
    for (std::size_t i = 0; i < inputs.size(); ++i)
      text += (i ? ", " : " ") + inputs[i];
  }
  return text;
}

std::string Need::what_would_run() const {
  if (!config_file.empty())
    return fs::path(config_file).filename().string() + " names a Hugging Face model (" + model +
           ") that opscope would build with the repository's " + interpreter;
  std::string who = !project_file.empty() && editor_settings
                        ? fs::path(project_file).filename().string() + " and the editor settings"
                    : editor_settings ? std::string("the editor settings")
                                      : fs::path(project_file).filename().string();
  std::string verb = !project_file.empty() && !editor_settings ? " names" : " name";
  return who + verb + " a Python model (" + model + ") that opscope would run with " + interpreter;
}

Need consent_needed(const project::Resolution& resolution, const project::ModelSettings& chosen,
                    bool chosen_by_user, const std::string& workspace_dir) {
  Need need;
  if (!resolution.model || resolution.model->kind != project::ModelKind::PythonTarget)
    return need;
  const project::ModelSpec& spec = *resolution.model;
  const project::ModelSettings& from_file = resolution.project_settings;
  std::string project_dir =
      resolution.project_file.empty() ? "" : fs::path(resolution.project_file).parent_path();
  need.model = spec.written;
  need.interpreter = shown_path(spec.python, project_dir.empty() ? spec.work_dir : project_dir);
  need.inputs = spec.inputs;

  // The project file decides what runs when it gives the target, the interpreter or the
  // inputs, or when the target is its own and the interpreter its default (.venv found there).
  bool file_decides = !resolution.project_file.empty() &&
                      ((!chosen.model && from_file.model) || (!chosen.python && from_file.python) ||
                       (!chosen.inputs && from_file.inputs));
  bool chosen_decides = chosen.model || chosen.python || chosen.inputs;
  std::string runs = need.runs();
  if (resolution.model_from_config && !chosen.python && !from_file.python &&
      is_repository_interpreter(spec.python)) {
    // Only the interpreter can run the repository's code here: transformers builds the
    // config's architecture, and a model needing remote code is refused by the helper.
    need.config_file = spec.origin;
    std::string repository = fs::path(spec.python).parent_path().parent_path().parent_path();
    need.subjects.push_back(
        editor_settings_subject(repository, spec.written, spec.python, spec.inputs, runs));
    return need;
  }
  if (file_decides) {
    need.project_file = resolution.project_file;
    if (auto subject = project_file_subject(resolution.project_file, runs))
      need.subjects.push_back(std::move(*subject));
    else
      need.unreadable_project = true;
  }
  if (chosen_decides && !chosen_by_user) {
    need.editor_settings = true;
    // The resolved values, so an interpreter picked by default is part of what was allowed.
    need.subjects.push_back(
        editor_settings_subject(workspace_dir, spec.written, spec.python, spec.inputs, runs));
  }
  return need;
}

Need project_file_need(const std::string& project_file) {
  std::string dir = fs::path(project_file).parent_path().string();
  // A config path inside the folder: resolution finds the project file there.
  project::Resolution resolution =
      project::resolve_model((fs::path(dir) / ".opscope-trust").string(), {}, {}, dir);
  if (resolution.project_file != project_file) { // missing: an ancestor's was found instead
    Need need;
    need.project_file = project_file;
    need.unreadable_project = true;
    return need;
  }
  return consent_needed(resolution, {}, false, dir);
}

std::string session_token(const Subject& subject) {
  return subject.key + "\n" + subject.sha256;
}

bool is_trusted(const Need& need, const Store& store, const std::set<std::string>& session) {
  if (need.unreadable_project)
    return false;
  for (const Subject& subject : need.subjects)
    if (!session.count(session_token(subject)) && !store.trusts(subject))
      return false;
  return true;
}

} // namespace opscope::trust
