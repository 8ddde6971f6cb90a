#include "lsp_server.h"

#include "feature_bridge.h"
#include "position_mapper.h"
#include "rewrite_actions.h"

#include "opscope/support/version.h"

#include <filesystem>

namespace opscope::lsp {
namespace fs = std::filesystem;
using protocol::ErrorCode;
using protocol::Reply;

namespace {

// Editors re-filter as the user types (isIncomplete asks them to come back), so more
// items only cost time: building the JSON was 81% of a 500-item reply (callgrind).
constexpr std::size_t kMaxCompletionItems = 100;
constexpr auto kDiagnosticDelay = std::chrono::milliseconds(200);
// A garbled 250 KB file gave 38,000 diagnostics: 80 MB of JSON and 5 s per
// edit, for a list no one reads past the first screens.
constexpr std::size_t kMaxPublishedDiagnostics = 500;

// Requests that name a document, for ContentModified when it changes under them.
std::optional<std::string> request_document(const protocol::Request& request) {
  if (!request.params.is_object())
    return std::nullopt;
  auto doc = request.params.find("textDocument");
  if (doc == request.params.end() || !doc->is_object() || !doc->contains("uri") ||
      !(*doc)["uri"].is_string())
    return std::nullopt;
  return (*doc)["uri"].get<std::string>();
}

bool is_change_of(const protocol::Message& message, const std::string& uri) {
  auto* note = std::get_if<protocol::Notification>(&message);
  return note && note->method == "textDocument/didChange" &&
         request_document({{}, "", note->params}) == uri;
}

protocol::MessageType message_type(LogLevel level) {
  switch (level) {
  case LogLevel::Error:
    return protocol::MessageType::Error;
  case LogLevel::Warning:
    return protocol::MessageType::Warning;
  case LogLevel::Info:
    return protocol::MessageType::Info;
  case LogLevel::Debug:
    return protocol::MessageType::Log;
  }
  return protocol::MessageType::Log;
}

// Items that all replace the same range (the key being typed) send it once,
// as itemDefaults.editRange: a third of a completion reply's bytes.
void use_shared_edit_range(protocol::CompletionList& list) {
  if (list.items.empty() || !list.items.front().text_edit)
    return;
  const protocol::Range& range = list.items.front().text_edit->range;
  for (const auto& item : list.items)
    if (!item.text_edit || !(item.text_edit->range == range))
      return;
  list.default_edit_range = range;
}

// Keeps the first kMaxPublishedDiagnostics - 1 and says how many more there are.
void limit_diagnostics(std::vector<protocol::Diagnostic>& diagnostics) {
  if (diagnostics.size() <= kMaxPublishedDiagnostics)
    return;
  std::size_t hidden = diagnostics.size() - (kMaxPublishedDiagnostics - 1);
  diagnostics.resize(kMaxPublishedDiagnostics - 1);
  protocol::Diagnostic more;
  more.range = diagnostics.back().range;
  more.severity = protocol::DiagnosticSeverity::Information;
  more.message = std::to_string(hidden) + " more problems are not shown; fix these first";
  diagnostics.push_back(std::move(more));
}

} // namespace

LspServer::LspServer(boost::asio::io_context& io, Transport& transport, Logger& log,
                     WorkerSettings workers)
    : io_(io), transport_(transport), log_(log), worker_settings_(std::move(workers)),
      trust_(trust::Store(trust::Store::default_file())), workspace_(*this, {}), project_poll_(io) {
  bind_methods();
}

void LspServer::poll_project_files() {
  std::vector<std::string> changed = workspace_.changed_project_files();
  for (const std::string& path : changed)
    log_.info(path + " changed; re-reading the project");
  if (!changed.empty()) {
    refresh_all_documents();
    if (models_)
      models_->release_unused(); // a project whose consent an edit revoked stops rebuilding
  }
  project_poll_.expires_after(worker_settings_.poll_interval);
  project_poll_.async_wait([this](boost::system::error_code ec) {
    if (!ec && !finished_)
      poll_project_files();
  });
}

LspServer::~LspServer() {
  log_.set_client_sink(nullptr);
}

void LspServer::bind_methods() {
  using namespace protocol;
  methods_.request<InitializeParams>("initialize",
                                     [this](const auto& p, Reply r) { on_initialize(p, r); });
  methods_.request<Json>("shutdown", [this](const Json&, Reply r) { on_shutdown(r); });
  methods_.request<TextDocumentPositionParams>(
      "textDocument/completion", [this](const auto& p, Reply r) { on_completion(p, r); });
  methods_.request<TextDocumentPositionParams>("textDocument/hover",
                                               [this](const auto& p, Reply r) { on_hover(p, r); });
  methods_.request<TextDocumentPositionParams>(
      "textDocument/definition", [this](const auto& p, Reply r) { on_definition(p, r); });
  methods_.request<CodeActionParams>("textDocument/codeAction",
                                     [this](const auto& p, Reply r) { on_code_action(p, r); });
  methods_.request<Json>("textDocument/codeLens",
                         [this](const Json& p, Reply r) { on_code_lens(p, r); });
  methods_.request<ExecuteCommandParams>(
      "workspace/executeCommand",
      [this](const auto& p, Reply r) { methods_.execute(p.command, p.arguments, r); });
  // The argument: a config's URI; for trustProject also a project file's path (or none).
  methods_.command<Json>(kShowSummary, [this](const Json& a, Reply r) { on_show_summary(a, r); });
  methods_.command<Json>(kReloadModel, [this](const Json& a, Reply r) { on_reload_model(a, r); });
  methods_.command<Json>(kTrustProject, [this](const Json& a, Reply r) { on_trust_project(a, r); });

  methods_.notification<Json>("initialized", [this](const Json&) { on_initialized(); });
  methods_.notification<Json>("exit", [this](const Json&) { finish(); });
  methods_.notification<Json>("$/cancelRequest", [](const Json&) {}); // see on_messages
  methods_.notification<Json>("$/setTrace", [](const Json&) {});
  methods_.notification<DidOpenTextDocumentParams>("textDocument/didOpen",
                                                   [this](const auto& p) { on_did_open(p); });
  methods_.notification<DidChangeTextDocumentParams>("textDocument/didChange",
                                                     [this](const auto& p) { on_did_change(p); });
  methods_.notification<DidCloseTextDocumentParams>("textDocument/didClose",
                                                    [this](const auto& p) { on_did_close(p); });
  methods_.notification<DidSaveTextDocumentParams>("textDocument/didSave", [this](const auto& p) {
    schedule_diagnostics(p.text_document.uri, kDiagnosticDelay);
  });
  methods_.notification<Json>("workspace/didChangeConfiguration",
                              [this](const Json& p) { on_did_change_configuration(p); });
  methods_.notification<DidChangeWatchedFilesParams>(
      "workspace/didChangeWatchedFiles", [this](const auto& p) { on_did_change_watched_files(p); });
}

// ---------------------------------------------------------------- dispatch

void LspServer::on_messages(std::vector<protocol::Message> batch) {
  // A $/cancelRequest that arrived with its request cancels it before it runs;
  // a didChange that arrived after a request makes its answer stale.
  std::set<std::string> cancelled;
  for (const auto& message : batch)
    if (auto* note = std::get_if<protocol::Notification>(&message);
        note && note->method == "$/cancelRequest" && note->params.is_object() &&
        note->params.contains("id"))
      cancelled.insert(note->params["id"].dump());

  for (std::size_t i = 0; i < batch.size() && !finished_; ++i) {
    const auto& message = batch[i];
    if (auto* invalid = std::get_if<protocol::InvalidMessage>(&message)) {
      log_.warning("invalid message: " + invalid->error.message);
      transport_.reply(invalid->id, invalid->error);
    } else if (auto* request = std::get_if<protocol::Request>(&message)) {
      bool is_cancelled = cancelled.count(protocol::to_json_id(request->id).dump()) != 0;
      bool modified = false;
      if (auto uri = request_document(*request))
        for (std::size_t j = i + 1; j < batch.size() && !modified; ++j)
          modified = is_change_of(batch[j], *uri);
      handle_request(*request, is_cancelled, modified);
    } else if (auto* note = std::get_if<protocol::Notification>(&message)) {
      handle_notification(*note);
    }
  }
}

void LspServer::handle_request(const protocol::Request& request, bool cancelled, bool modified) {
  Reply reply([this, id = request.id](protocol::Outcome outcome) {
    transport_.reply(id, std::move(outcome));
  });
  if (lifecycle_ == Lifecycle::Uninitialized && request.method != "initialize")
    return reply.error(ErrorCode::ServerNotInitialized,
                       "the server is not initialized: send \"initialize\" first");
  if (lifecycle_ == Lifecycle::ShuttingDown)
    return reply.error(ErrorCode::InvalidRequest,
                       "the server is shutting down: only \"exit\" is accepted");
  if (cancelled)
    return reply.error(ErrorCode::RequestCancelled, "cancelled by the client");
  if (modified && request.method != "workspace/executeCommand")
    return reply.error(ErrorCode::ContentModified,
                       "the document changed before the request was answered");
  log_.debug("request " + request.method + " " + protocol::to_string(request.id));
  try {
    methods_.call(request.method, request.params, reply);
  } catch (const std::exception& e) {
    log_.error(request.method + " failed: " + e.what());
    reply.error(ErrorCode::InternalError, request.method + " failed: " + e.what());
  }
}

void LspServer::handle_notification(const protocol::Notification& note) {
  if (note.method == "exit")
    return finish();
  if (lifecycle_ == Lifecycle::Uninitialized) {
    log_.warning("ignoring " + note.method + " before initialize");
    return;
  }
  log_.debug("notification " + note.method);
  try {
    if (auto problem = methods_.notify(note.method, note.params)) {
      // "$/" notifications may be ignored silently, as LSP allows.
      if (note.method.rfind("$/", 0) != 0)
        log_.warning(*problem);
    }
  } catch (const std::exception& e) {
    log_.error(note.method + " failed: " + e.what());
  }
}

void LspServer::on_disconnect() {
  if (!finished_)
    log_.info(shutdown_requested_ ? "client disconnected after shutdown"
                                  : "client disconnected without shutdown");
  finish();
}

void LspServer::finish() {
  if (finished_)
    return;
  finished_ = true;
  for (auto& [uri, timer] : diagnostic_timers_)
    timer->cancel();
  project_poll_.cancel();
  model_progress_.stop();
  models_.reset(); // kills running workers
  log_.set_client_sink(nullptr);
  if (on_finished)
    on_finished();
}

// ---------------------------------------------------------------- lifecycle

void LspServer::on_initialize(const protocol::InitializeParams& params, Reply reply) {
  if (lifecycle_ != Lifecycle::Uninitialized)
    return reply.error(ErrorCode::InvalidRequest, "initialize was already received");
  client_ = params;
  encoding_ = protocol::negotiate_position_encoding(params.position_encodings);
  init_settings_ = project::settings_from_json(params.initialization_options);
  update_workspace_settings();
  read_workspace_trust(params.initialization_options);
  model_progress_.set_client_progress(params.supports_work_done_progress);
  lifecycle_ = Lifecycle::Running;
  log_.set_client_sink([this](LogLevel level, const std::string& message) {
    notify_log_(protocol::LogMessageParams{message_type(level), message});
  });
  models_ = std::make_unique<ModelStore>(
      io_, log_, worker_settings_,
      ModelStore::Listener{[this](const LoadedModel& m) { model_progress_.load_started(m); },
                           [this](const LoadedModel& m) { model_load_finished(m); },
                           [this] { return workspace_.models_in_use(documents_.all()); },
                           [this] { free_later("released models", nullptr); }});
  Json capabilities = {
      {"positionEncoding", protocol::to_string(encoding_)},
      {"textDocumentSync",
       {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}}},
      {"completionProvider",
       {{"triggerCharacters", {"\"", "'", ".", " "}}, {"resolveProvider", false}}},
      {"hoverProvider", true},
      {"definitionProvider", true},
      {"codeActionProvider", {{"codeActionKinds", {"quickfix", kRewriteKind}}}},
      {"codeLensProvider", {{"resolveProvider", false}}},
      {"executeCommandProvider", {{"commands", methods_.command_names()}}},
      {"workspace", {{"workspaceFolders", {{"supported", true}}}}},
  };
  reply.result({{"capabilities", capabilities},
                {"serverInfo", {{"name", "opscope"}, {"version", support::version()}}}});
}

void LspServer::on_initialized() {
  poll_project_files();
  register_watchers();
  pull_configuration();
}

void LspServer::on_shutdown(Reply reply) {
  shutdown_requested_ = true;
  lifecycle_ = Lifecycle::ShuttingDown;
  reply.result(nullptr);
}

// ---------------------------------------------------------------- workspace

std::string LspServer::workspace_dir() const {
  std::string uri = !client_.workspace_folders.empty() ? client_.workspace_folders.front().uri
                                                       : client_.root_uri.value_or("");
  return protocol::path_from_uri(uri).value_or("");
}

void LspServer::pull_configuration() {
  if (!client_.supports_configuration)
    return;
  transport_.call("workspace/configuration", {{"items", {{{"section", "opscope"}}}}},
                  [this](const protocol::Response& response) {
                    if (finished_ || !response.result || !response.result->is_array() ||
                        response.result->empty())
                      return;
                    pulled_settings_ = project::settings_from_json((*response.result)[0]);
                    update_workspace_settings();
                    refresh_all_documents();
                  });
}

void LspServer::on_did_change_configuration(const Json& params) {
  if (params.is_object() && params.contains("settings") && params["settings"].is_object()) {
    const Json& settings = params["settings"];
    pulled_settings_ =
        project::settings_from_json(settings.contains("opscope") ? settings["opscope"] : settings);
    update_workspace_settings();
  }
  pull_configuration(); // the pull model: the notification may carry nothing
  refresh_all_documents();
}

void LspServer::register_watchers() {
  if (!client_.supports_watcher_registration)
    return;
  Json watchers = Json::array();
  for (const char* glob : {"**/opscope.yaml", "**/*.pt2", "**/*.py", "**/*.json"})
    watchers.push_back({{"globPattern", glob}});
  Json registration = {{"id", "opscope-watchers"},
                       {"method", "workspace/didChangeWatchedFiles"},
                       {"registerOptions", {{"watchers", watchers}}}};
  transport_.call("client/registerCapability", {{"registrations", {registration}}},
                  [this](const protocol::Response& response) {
                    if (response.error)
                      log_.warning("the client refused file watchers (" + response.error->message +
                                   "); polling instead");
                  });
}

void LspServer::on_did_change_watched_files(const protocol::DidChangeWatchedFilesParams& params) {
  bool project_changed = false;
  for (const auto& change : params.changes) {
    auto path = protocol::path_from_uri(change.uri);
    if (!path)
      continue;
    if (fs::path(*path).filename() == project::kProjectFileName)
      project_changed = true;
    else if (models_)
      models_->file_changed(*path);
  }
  if (project_changed)
    refresh_all_documents();
}

// ---------------------------------------------------------------- documents

void LspServer::on_did_open(const protocol::DidOpenTextDocumentParams& params) {
  if (auto refused = documents_.open(params.text_document))
    return show_error(*refused);
  schedule_diagnostics(params.text_document.uri, std::chrono::milliseconds(0));
}

void LspServer::on_did_change(const protocol::DidChangeTextDocumentParams& params) {
  const std::string& uri = params.text_document.uri;
  switch (documents_.change(params, encoding_)) {
  case DocumentStore::Change::Applied:
    return schedule_diagnostics(uri, kDiagnosticDelay);
  case DocumentStore::Change::NotOpen:
    return log_.warning("didChange for a document that is not open: " + uri);
  case DocumentStore::Change::OverLimit:
    forget_document(uri);
    return show_error(uri + " grew past the " +
                      std::to_string(documents_.limits().max_total_bytes >> 20) +
                      " MB that open documents may hold in all, so the server closed it; "
                      "close other documents and reopen it");
  }
}

// An error the user should see (not only in the log).
void LspServer::show_error(const std::string& message) {
  log_.warning(message);
  notify_message_(protocol::LogMessageParams{protocol::MessageType::Error, message});
}

void LspServer::on_did_close(const protocol::DidCloseTextDocumentParams& params) {
  const std::string& uri = params.text_document.uri;
  documents_.close(uri);
  forget_document(uri);
}

// Drops what the server kept for `uri`, which is no longer open.
void LspServer::forget_document(const std::string& uri) {
  diagnostic_timers_.erase(uri);
  checks_.cancel(uri);
  measurements_.forget(uri);
  rewrites_.forget(uri);
  free_later(uri, workspace_.forget(uri));
  notify_diagnostics_(protocol::PublishDiagnosticsParams{uri, std::nullopt, {}});
  if (models_)
    models_->release_unused_later();
}

void LspServer::free_later(const std::string& what, std::shared_ptr<void> kept) {
  // A key of its own per document, so that closing another does not replace (and free here)
  // what this one kept.
  checks_.submit("free " + what, [this, kept = std::move(kept)]() mutable {
    kept.reset();
    memory_return_.now();
    return BackgroundJobs::Delivery{};
  });
}

// A 50,000-key config's parse and resolution took 20 M and 7 M instructions to free, in the
// request that followed the edit (callgrind). A key per job, so that a queued one is never
// replaced (and freed here); no malloc_trim (free_later's): the idle hook returns memory at
// most every 2 s while the user types.
void LspServer::release(std::shared_ptr<const void> stale) {
  if (stale)
    checks_.submit("free stale " + std::to_string(++stale_releases_),
                   [stale = std::move(stale)]() mutable {
                     stale.reset();
                     return BackgroundJobs::Delivery{};
                   });
}

const Document* LspServer::document_or_error(const std::string& uri, const Reply& reply) {
  const Document* doc = documents_.find(uri);
  if (!doc)
    reply.error(ErrorCode::InvalidParams, "document not open: " + uri);
  return doc;
}

const workspace::Model* LspServer::ensure(const project::ModelSpec& spec) {
  return models_ ? &models_->ensure(spec) : nullptr;
}

void LspServer::update_workspace_settings() {
  workspace_.set_settings({init_settings_.overridden_by(pulled_settings_), workspace_dir()});
}

LspServer::Analysis LspServer::analyse(const Document& doc) {
  Analysis out = workspace_.analyse(doc);
  for (const auto& problem : out.resolution.project_problems)
    if (reported_project_problems_.insert(problem).second)
      log_.warning(problem);
  return out;
}

void LspServer::schedule_diagnostics(const std::string& uri, std::chrono::milliseconds delay) {
  auto& timer = diagnostic_timers_[uri];
  if (!timer)
    timer = std::make_unique<boost::asio::steady_timer>(io_);
  timer->expires_after(delay);
  timer->async_wait([this, uri](boost::system::error_code ec) {
    if (!ec && !finished_)
      publish_diagnostics(uri);
  });
}

void LspServer::publish_diagnostics(const std::string& uri) {
  const Document* doc = documents_.find(uri);
  if (!doc)
    return;
  Analysis analysis = analyse(*doc);
  offer_trust(analysis);
  // The check runs off the io thread (a 50,000-key config takes ~0.4 s) on what it owns or
  // shares immutably; requests are answered meanwhile.
  auto text = std::make_shared<const std::string>(doc->text);
  checks_.submit(uri, [this, uri, revision = doc->revision, version = doc->version, text,
                       document = analysis.document, diagnosis = workspace_.diagnosis(analysis),
                       encoding = encoding_] {
    PositionMapper positions(*text, encoding);
    FeatureInput input{*document, {}, positions, uri, ""};
    std::vector<protocol::Diagnostic> diagnostics = to_lsp(input, diagnosis());
    limit_diagnostics(diagnostics);
    return BackgroundJobs::Delivery(
        [this, uri, revision, version, diagnostics = std::move(diagnostics)] {
          const Document* now = documents_.find(uri);
          if (!now || now->revision != revision)
            return; // edited (its own check is scheduled) or closed meanwhile
          notify_diagnostics_(protocol::PublishDiagnosticsParams{uri, version, diagnostics});
        });
  });
  measure_weights(*doc, analysis);
}

FeatureInput LspServer::feature_input(const Analysis& analysis, const PositionMapper& positions,
                                      const Document& doc) const {
  return {*analysis.document, measured_context(analysis, doc), positions, doc.uri,
          analysis.model ? analysis.model->spec.work_dir : ""};
}

dialects::Context LspServer::measured_context(const Analysis& analysis, const Document& doc) const {
  dialects::Context context = workspace_.context(analysis);
  // What was measured on real weights so far (coreai-opt: the weight error of its lens, hovers).
  if (context.index)
    if (auto state = measurements_.state(doc.uri, doc.revision))
      context.measured = std::make_shared<const dialects::Measured>(std::move(*state));
  return context;
}

std::string LspServer::weights_of(const Analysis& analysis) const {
  const workspace::Model* model = analysis.model;
  if (!models_ || !model || !model->index)
    return "";
  // Real weights where the project has them (opscope.yaml's `weights:`, an hf: model's
  // checkpoint beside its config.json); else an index file and a target exported weightless
  // (the default) have none: nothing to run, and nothing to show. An archive says whether it
  // kept them when asked.
  const std::string weights =
      analysis.resolution.model ? analysis.resolution.model->weights : std::string();
  if (!weights.empty())
    return weights;
  if (model->spec.kind == project::ModelKind::IndexFile ||
      (model->spec.kind == project::ModelKind::PythonTarget && model->spec.weightless))
    return "";
  return models_->archive_of(model->spec);
}

void LspServer::measure_weights(const Document& doc, const Analysis& analysis) {
  const workspace::Model* model = analysis.model;
  if (!model || !model->index)
    return;
  const std::string weights = weights_of(analysis);
  if (weights.empty())
    return;
  if (std::unique_ptr<dialects::Measurement> measurement =
          analysis.document->measurement(workspace_.context(analysis), weights))
    measurements_.update(doc.uri, doc.revision, weights, std::move(measurement));
}

void LspServer::weights_measured(const std::string& uri) {
  if (client_.supports_code_lens_refresh && !finished_) // every open document's lenses
    transport_.call("workspace/codeLens/refresh", nullptr, [](const protocol::Response&) {});
  const Document* doc = documents_.find(uri);
  if (doc && !finished_ && rewrites_.wanted(uri))
    rewrite_if_measured(*doc);
}

void LspServer::rewrite_if_measured(const Document& doc) {
  Analysis analysis = analyse(doc);
  const std::string weights = weights_of(analysis);
  if (weights.empty() || !analysis.model || !analysis.model->index)
    return;
  if (std::unique_ptr<dialects::Rewriting> rewriting =
          analysis.document->rewriting(measured_context(analysis, doc), weights,
                                       doc.path.empty() ? doc.uri : doc.path, doc.text))
    rewrites_.update(doc.uri, doc.revision, weights, analysis.model->index.get(),
                     std::move(rewriting));
}

void LspServer::refresh_all_documents() {
  for (const auto& [uri, doc] : documents_.all())
    schedule_diagnostics(uri, std::chrono::milliseconds(0));
}

// ---------------------------------------------------------------- models

void LspServer::model_load_finished(const LoadedModel& model) {
  model_progress_.load_finished(model);
  if (model.state == ModelState::Failed)
    notify_message_(
        protocol::LogMessageParams{protocol::MessageType::Error, "opscope: " + model.error});
  // Every open config is re-checked: the ones on this model see new names.
  refresh_all_documents();
}

void LspServer::schema_dump_finished(const std::string& problem) {
  if (finished_)
    return;
  if (!problem.empty())
    return show_error(problem); // the built-in schema keeps serving
  refresh_all_documents();      // the configs on that library are checked by its own models
}

// ---------------------------------------------------------------- features

template <typename Answer>
void LspServer::answer_feature_request(const std::string& uri, const Reply& reply,
                                       Answer&& answer) {
  const Document* doc = document_or_error(uri, reply);
  if (!doc)
    return;
  Analysis analysis = analyse(*doc);
  PositionMapper positions(doc->text, documents_.lines(*doc), encoding_);
  answer(analysis, feature_input(analysis, positions, *doc));
}

void LspServer::on_completion(const protocol::TextDocumentPositionParams& params, Reply reply) {
  answer_feature_request(
      params.text_document.uri, reply, [&](const Analysis& analysis, const FeatureInput& input) {
        protocol::CompletionList list = complete(input, params.position, kMaxCompletionItems);
        // While the first load runs, the names are not known yet: ask the
        // client to come back.
        if (analysis.model && !input.context.index)
          list.is_incomplete = true;
        if (client_.supports_completion_edit_range_default)
          use_shared_edit_range(list);
        reply.result(protocol::to_json_text(list));
      });
}

void LspServer::on_hover(const protocol::TextDocumentPositionParams& params, Reply reply) {
  answer_feature_request(params.text_document.uri, reply,
                         [&](const Analysis&, const FeatureInput& input) {
                           auto result = hover(input, params.position);
                           if (result)
                             reply.result(protocol::to_json_text(*result));
                           else
                             reply.result(Json(nullptr));
                         });
}

void LspServer::on_definition(const protocol::TextDocumentPositionParams& params, Reply reply) {
  answer_feature_request(params.text_document.uri, reply,
                         [&](const Analysis&, const FeatureInput& input) {
                           reply.result(definition(input, params.position));
                         });
}

void LspServer::on_code_lens(const Json& params, Reply reply) {
  const Json* uri = nullptr;
  if (params.is_object() && params.contains("textDocument") && params["textDocument"].is_object())
    if (auto it = params["textDocument"].find("uri");
        it != params["textDocument"].end() && it->is_string())
      uri = &*it;
  if (!uri)
    return reply.error(ErrorCode::InvalidParams,
                       "textDocument/codeLens needs params.textDocument.uri (a string)");
  answer_feature_request(
      uri->get<std::string>(), reply,
      [&](const Analysis&, const FeatureInput& input) { reply.result(code_lenses(input)); });
}

void LspServer::on_code_action(const protocol::CodeActionParams& params, Reply reply) {
  answer_feature_request(
      params.text_document.uri, reply, [&](const Analysis& analysis, const FeatureInput& input) {
        Json actions = code_actions(input, workspace_.diagnose(analysis), params.range);
        add_trust_action(analysis, params.text_document.uri, actions);
        add_rewrite_actions(params, analysis, actions);
        reply.result(actions);
      });
}

// On the root key's line (where the lenses are), or anywhere when the user asks for actions
// (triggerKind 1, Invoked) or for refactors (VS Code's Refactor... menu): a whole-config
// rewrite, not a lightbulb on every line. The first such request starts the proposals; until
// they are done, a client that shows disabled actions gets one saying so.
void LspServer::add_rewrite_actions(const protocol::CodeActionParams& params,
                                    const Analysis& analysis, Json& actions) {
  const Document* doc = documents_.find(params.text_document.uri);
  if (!doc || !wants_rewrites(params.context))
    return;
  const std::optional<dialects::RewritesOffered> offered =
      analysis.document->rewrites(measured_context(analysis, *doc), weights_of(analysis));
  if (!offered)
    return;
  const bool asked = params.context.is_object() && (params.context.contains("only") ||
                                                    params.context.value("triggerKind", 0) == 1);
  PositionMapper positions(doc->text, documents_.lines(*doc), encoding_);
  const int line = positions.to_lsp(config::Position{offered->line, 0}).line;
  if (!asked && (params.range.end.line < line || params.range.start.line > line))
    return;
  rewrites_.want(doc->uri);
  rewrite_if_measured(*doc);
  const auto& offers = rewrites_.offers(doc->uri, doc->revision);
  const auto measured = measurements_.state(doc->uri, doc->revision);
  const bool measuring = rewrites_.pending(doc->uri, doc->revision) ||
                         (measured && measured->measuring && !measured->current);
  if (offers.empty() && measuring && client_.supports_disabled_code_actions)
    actions.push_back({{"title", offered->pending_title},
                       {"kind", kRewriteKind},
                       {"disabled", {{"reason", offered->pending_reason}}}});
  for (const dialects::Rewrite& offer : offers)
    actions.push_back(
        rewrite_action(offer, doc->uri, doc->version, positions, client_.supports_confirmed_edits));
}

} // namespace opscope::lsp
