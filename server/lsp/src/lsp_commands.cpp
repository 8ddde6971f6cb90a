// The session's commands (workspace/executeCommand): opscope.showSummary and
// opscope.reloadModel, and the reading of a command's argument every command shares
// (opscope.trustProject is in lsp_trust.cpp). Bound in lsp_server.cpp.
#include "lsp_server.h"

#include "opscope/format/summary.h"
#include "opscope/support/regular_file.h"

namespace opscope::lsp {
using protocol::ErrorCode;
using protocol::Reply;

namespace {

// Largest config a command reads from disk; the editor holds larger ones open.
constexpr std::uint64_t kMaxSavedConfigBytes = std::uint64_t{256} << 20;

} // namespace

std::string named_target(const Json& argument) {
  if (argument.is_string())
    return argument.get<std::string>();
  if (argument.is_object() && argument.contains("uri") && argument["uri"].is_string())
    return argument["uri"].get<std::string>();
  return "";
}

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
    return reply.error(ErrorCode::RequestFailed, analysis.resolution.problem.empty()
                                                     ? "this document is not a config with a model"
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

} // namespace opscope::lsp
