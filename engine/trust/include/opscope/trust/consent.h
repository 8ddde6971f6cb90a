// Which consent a config's resolved model needs before opscope runs anything for it.
//
// Archives and index files are data: they need none. A Python target is exported by running
// an interpreter on the project's code, so every source that decides what runs (the target,
// the interpreter, the inputs) must be trusted: the project file by its exact content, editor
// settings by their values per workspace folder. What the user typed on the command line is
// their own choice and needs no further consent, including the interpreter opscope picks by
// default for it.
#pragma once

#include "opscope/project/project.h"
#include "opscope/trust/store.h"

#include <set>
#include <string>
#include <vector>

namespace opscope::trust {

struct Need {
  std::vector<Subject> subjects; // each must be trusted; empty: nothing to consent to
  std::string model;             // as written: "model.py:build"
  std::string interpreter;       // as shown: relative to the project folder when inside it
  std::vector<std::string> inputs;
  std::string project_file;     // the project file among the subjects, else ""
  bool editor_settings = false; // editor settings are among the subjects
  // The config names its own base model (a PEFT config), which the repository's .venv would
  // build: that interpreter is the repository's choice, so it needs consent like a project file.
  std::string config_file;
  bool unreadable_project = false; // the project file could not be read: it cannot be trusted

  bool needed() const { return !subjects.empty() || unreadable_project; }
  // "model.py:build with .venv/bin/python" (", inputs 1x3x8x8" when there are some).
  std::string runs() const;
  // "opscope.yaml names a Python model (model.py:build) that opscope would run with
  // .venv/bin/python" (or "the editor settings name ...").
  std::string what_would_run() const;
};

// `chosen` overrides the project file field by field (editor settings, the command line);
// `chosen_by_user` says they were typed by the user (the command line) rather than settings a
// repository can ship (an editor's workspace settings). `workspace_dir` keys editor settings.
Need consent_needed(const project::Resolution& resolution, const project::ModelSettings& chosen,
                    bool chosen_by_user, const std::string& workspace_dir);

// What trusting `project_file` itself consents to: its own model, as it names it now (no
// editor settings or command line). Needs nothing when that model is data.
Need project_file_need(const std::string& project_file);

// "key\nsha256": consent given for one session or one run only, never written down.
std::string session_token(const Subject& subject);

// Every subject is trusted, by the store or by `session` (tokens from session_token).
bool is_trusted(const Need& need, const Store& store, const std::set<std::string>& session = {});

} // namespace opscope::trust
