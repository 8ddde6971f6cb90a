#include "trust_gate.h"

namespace opscope::lsp {

std::string TrustGate::diagnostic(const trust::Need& need) const {
  std::string what = need.what_would_run();
  if (workspace_untrusted_)
    return what + "; the editor's workspace is not trusted, so opscope runs nothing: trust the "
                  "workspace in the editor to allow it";
  if (need.unreadable_project)
    return what + "; " + need.project_file + " cannot be read, so it cannot be trusted";
  std::string how = need.project_file.empty() || need.editor_settings
                        ? "choose \"Trust and export\" or run the command opscope.trustProject"
                        : "run `opscope trust " + need.project_file +
                              "` or choose \"Trust and export\" to allow it";
  std::string text = what + "; " + how;
  if (!store_.problem().empty())
    text += " (" + store_.problem() + ")";
  return text;
}

bool TrustGate::first_time(const trust::Need& need) {
  if (workspace_untrusted_ || need.unreadable_project)
    return false;
  std::string token;
  for (const trust::Subject& subject : need.subjects)
    token += trust::session_token(subject) + "\n";
  return asked_.insert(token).second;
}

std::string TrustGate::question(const trust::Need& need) const {
  std::string who = need.project_file.empty() ? "the editor settings" : need.project_file;
  if (!need.project_file.empty() && need.editor_settings)
    who += " with the editor settings";
  return "opscope: " + who + (need.project_file.empty() ? " want" : " wants") + " to run " +
         need.model + " with " + need.interpreter + ". Trust this project?";
}

std::string TrustGate::allow(const trust::Need& need) {
  std::string warning;
  for (const trust::Subject& subject : need.subjects) {
    try {
      store_.allow(subject);
    } catch (const std::exception& e) {
      session_.insert(trust::session_token(subject));
      warning = std::string(e.what()) + "; trusted for this session only";
    }
  }
  return warning;
}

} // namespace opscope::lsp
