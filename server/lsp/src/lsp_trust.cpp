// The session's side of trust (engine/trust, through TrustGate): the editor's workspace trust,
// the question asked the first time a config's project wants to run code, the quick fix that
// trusts later, and the command opscope.trustProject. Bound in lsp_server.cpp.
#include "lsp_server.h"

#include "opscope/support/regular_file.h"

#include <filesystem>

namespace opscope::lsp {
namespace fs = std::filesystem;
using protocol::ErrorCode;
using protocol::Reply;

// initializationOptions.workspaceTrusted. Absent: the client has no notion of workspace trust,
// and the server asks the user itself.
void LspServer::read_workspace_trust(const Json& initialization_options) {
  if (!initialization_options.is_object())
    return;
  auto trusted = initialization_options.find("workspaceTrusted");
  if (trusted != initialization_options.end() && trusted->is_boolean())
    trust_.set_workspace_trusted(trusted->get<bool>());
}

// Asks the first time this exact project content wants to run (TrustGate::first_time).
void LspServer::offer_trust(const Analysis& analysis) {
  if (analysis.untrusted.needed() && trust_.first_time(analysis.untrusted))
    ask_trust(analysis.untrusted);
}

// Trusting later: for clients that cannot show the question, and after "Not now".
void LspServer::add_trust_action(const Analysis& analysis, const std::string& uri,
                                 Json& actions) const {
  if (!analysis.untrusted.needed() || trust_.workspace_untrusted() ||
      analysis.untrusted.unreadable_project)
    return;
  std::string title = "Trust this project and export " + analysis.untrusted.model;
  actions.push_back(
      {{"title", title},
       {"kind", "quickfix"},
       {"command", {{"title", title}, {"command", kTrustProject}, {"arguments", {uri}}}}});
}

void LspServer::ask_trust(const trust::Need& need) {
  log_.info("asking the user to trust " + need.runs());
  Json params = {{"type", static_cast<int>(protocol::MessageType::Warning)},
                 {"message", trust_.question(need)},
                 {"actions", {{{"title", kTrustAndExport}}, {{"title", kNotNow}}}}};
  transport_.call("window/showMessageRequest", params,
                  [this, need](const protocol::Response& response) {
                    if (finished_)
                      return;
                    bool yes = response.result && response.result->is_object() &&
                               response.result->value("title", "") == kTrustAndExport;
                    if (yes)
                      return trust_and_export(need);
                    log_.info("not trusted: " + need.runs() +
                              " (the config's quick fix or opscope.trustProject trusts it later)");
                  });
}

void LspServer::trust_and_export(const trust::Need& need) {
  std::string warning = trust_.allow(need);
  if (!warning.empty()) {
    log_.warning(warning);
    notify_message_(
        protocol::LogMessageParams{protocol::MessageType::Warning, "opscope: " + warning});
  }
  log_.info("trusted: " + need.runs());
  refresh_all_documents(); // the configs re-resolve, now allowed to export
}

// What opscope.trustProject's argument consents to: a project file's path or URI (its current
// content), a config's URI (what its model needs), or nothing (every open config's project).
// The error message instead when the argument names nothing that can be trusted.
std::variant<std::vector<trust::Need>, std::string>
LspServer::trust_needs(const std::string& target) {
  std::string path =
      target.rfind("file:", 0) == 0 ? protocol::path_from_uri(target).value_or("") : target;
  std::vector<trust::Need> needs;
  if (!path.empty() && fs::path(path).filename() == project::kProjectFileName) {
    trust::Need need = trust::project_file_need(fs::absolute(path).lexically_normal().string());
    if (need.needed())
      needs.push_back(std::move(need));
    return needs;
  }
  std::vector<Document> docs;
  if (target.empty()) {
    for (const auto& [uri, doc] : documents_.all())
      docs.push_back(doc);
  } else if (const Document* open = documents_.find(target)) {
    docs.push_back(*open);
  } else if (path.empty()) {
    return "opscope.trustProject: " + target + " is not an open config or a file";
  } else {
    try {
      docs.push_back(read_saved(target));
    } catch (const support::FileReadError& e) {
      return "opscope.trustProject: cannot read " + target + " (" + e.what() +
             "); pass a config's URI or an opscope.yaml path";
    }
  }
  for (const Document& doc : docs)
    if (Analysis analysis = analyse(doc); analysis.untrusted.needed())
      needs.push_back(analysis.untrusted);
  return needs;
}

void LspServer::on_trust_project(const Json& argument, Reply reply) {
  if (trust_.workspace_untrusted())
    return reply.error(ErrorCode::RequestFailed,
                       "the editor's workspace is not trusted, so opscope runs nothing: trust the "
                       "workspace in the editor first");
  auto needs = trust_needs(named_target(argument));
  if (const std::string* error = std::get_if<std::string>(&needs))
    return reply.error(ErrorCode::InvalidParams, *error);
  Json trusted = Json::array();
  for (const trust::Need& need : std::get<std::vector<trust::Need>>(needs)) {
    if (need.unreadable_project)
      return reply.error(ErrorCode::RequestFailed,
                         need.project_file + " cannot be read, so it cannot be trusted");
    trust_and_export(need);
    for (const trust::Subject& subject : need.subjects)
      trusted.push_back(subject.key);
  }
  reply.result(Json{{"trusted", trusted}});
}

} // namespace opscope::lsp
