// The session's commands (workspace/executeCommand): opscope.showSummary, opscope.reloadModel
// and opscope.trustProject, with the trust prompt they share. Bound in lsp_server.cpp.
#include "lsp_server.h"

#include "opscope/format/summary.h"
#include "opscope/support/regular_file.h"

#include <filesystem>

namespace opscope::lsp {
namespace fs = std::filesystem;
using protocol::ErrorCode;
using protocol::Reply;

namespace {

// Largest config a command reads from disk; the editor holds larger ones open.
constexpr std::uint64_t kMaxSavedConfigBytes = std::uint64_t{256} << 20;

// The URI or path a command's argument names: the argument itself, or its "uri" field.
std::string named_target(const Json& argument) {
  if (argument.is_string())
    return argument.get<std::string>();
  if (argument.is_object() && argument.contains("uri") && argument["uri"].is_string())
    return argument["uri"].get<std::string>();
  return "";
}

// `target` (a URI or a path) as saved. Regular files only, size-capped: a FIFO named by the
// client would block the server. Throws support::FileReadError.
Document read_saved(const std::string& target) {
  std::string path =
      target.rfind("file:", 0) == 0 ? protocol::path_from_uri(target).value_or("") : target;
  if (path.empty())
    throw support::FileReadError(support::FileReadError::Kind::Unreadable,
                                 target + ": not a local file");
  Document doc;
  doc.text = support::read_regular_file(path, kMaxSavedConfigBytes);
  doc.uri = target.rfind("file:", 0) == 0 ? target : protocol::uri_from_path(path);
  doc.path = path;
  return doc;
}

} // namespace

// The config a command's argument names: the open document, else the file as saved. Nothing
// when the argument names none; when the file cannot be read, the error is the reply
// (reply.sent()).
std::optional<Document> LspServer::command_document(const Json& argument, const Reply& reply) {
  std::string target = named_target(argument);
  if (target.empty())
    return std::nullopt;
  if (const Document* doc = documents_.find(target))
    return *doc;
  try {
    return read_saved(target);
  } catch (const support::FileReadError& e) {
    reply.error(ErrorCode::InvalidParams, "cannot read " + target + " (" + e.what() +
                                              "): open the config in the editor first");
    return std::nullopt;
  }
}

void LspServer::on_reload_model(const Json& argument, Reply reply) {
  std::optional<Document> doc = command_document(argument, reply);
  if (reply.sent())
    return;
  if (doc) {
    Analysis analysis = analyse(*doc);
    if (analysis.model)
      models_->reload(analysis.model->spec.key());
  } else if (models_) {
    models_->reload_all();
  }
  reply.result(nullptr);
}

void LspServer::on_show_summary(const Json& argument, Reply reply) {
  std::optional<Document> doc = command_document(argument, reply);
  if (reply.sent())
    return;
  if (!doc && !documents_.all().empty())
    doc = documents_.all().begin()->second;
  if (!doc)
    return reply.error(ErrorCode::InvalidParams,
                       "opscope.showSummary needs an open config document (its URI as the "
                       "first argument)");
  Analysis analysis = analyse(*doc);
  if (!analysis.model)
    return reply.error(ErrorCode::RequestFailed,
                       analysis.resolution.problem.empty()
                           ? "this document is not a coreai-opt config with a model"
                           : analysis.resolution.problem);
  if (!analysis.model->index)
    return reply.error(ErrorCode::RequestFailed,
                       analysis.model->state == ModelState::Failed
                           ? analysis.model->error
                           : "the model is still loading; try again in a moment");
  format::SummaryOptions options;
  options.compressor = analysis.resolution.compressor;
  options.cwd = analysis.model->spec.work_dir;
  options.width = 100;
  reply.result(format::format_summary(*analysis.model->index, options));
}

// ---------------------------------------------------------------- trust

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
