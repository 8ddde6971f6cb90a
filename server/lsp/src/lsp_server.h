// The LSP session: binds each method in one table, tracks the lifecycle and
// the open documents, resolves each config to its model, and answers from the
// in-memory index while models load in child processes.
#pragma once

#include "documents.h"
#include "feature_bridge.h"
#include "log.h"
#include "model_store.h"
#include "opscope/project/project.h"
#include "transport.h"
#include "trust_gate.h"

#include "opscope/config/document.h"
#include "opscope/protocol/lsp_types.h"
#include "opscope/protocol/method_table.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <map>
#include <memory>
#include <optional>
#include <set>

namespace opscope::lsp {

class LspServer : public MessageHandler {
public:
  LspServer(boost::asio::io_context& io, Transport& transport, Logger& log, WorkerSettings workers);
  ~LspServer() override;

  void on_messages(std::vector<protocol::Message> batch) override;
  void on_disconnect() override;

  bool finished() const { return finished_; }
  int exit_code() const { return shutdown_requested_ ? 0 : 1; }
  std::function<void()> on_finished; // run once the session ends

private:
  enum class Lifecycle { Uninitialized, Running, ShuttingDown };

  // What one config document resolves to right now.
  struct Analysis {
    std::shared_ptr<const config::ConfigDocument> config;
    project::Resolution resolution;
    const LoadedModel* model = nullptr;
    trust::Need untrusted; // set while the model may not run (no consent yet)
  };

  void bind_methods();
  void handle_request(const protocol::Request& request, bool cancelled, bool modified);
  void handle_notification(const protocol::Notification& notification);
  void finish();

  // Lifecycle.
  void on_initialize(const protocol::InitializeParams& params, protocol::Reply reply);
  void on_initialized();
  void on_shutdown(protocol::Reply reply);
  // Documents.
  void on_did_open(const protocol::DidOpenTextDocumentParams& params);
  void on_did_change(const protocol::DidChangeTextDocumentParams& params);
  void forget_document(const std::string& uri);
  void show_error(const std::string& message);
  void on_did_close(const protocol::DidCloseTextDocumentParams& params);
  void release_unused_models();
  // Features.
  void on_completion(const protocol::TextDocumentPositionParams& params, protocol::Reply reply);
  void on_hover(const protocol::TextDocumentPositionParams& params, protocol::Reply reply);
  void on_definition(const protocol::TextDocumentPositionParams& params, protocol::Reply reply);
  void on_code_action(const protocol::CodeActionParams& params, protocol::Reply reply);
  void on_execute_command(const protocol::ExecuteCommandParams& params, protocol::Reply reply);
  // Workspace.
  void on_did_change_configuration(const Json& params);
  void on_did_change_watched_files(const protocol::DidChangeWatchedFilesParams& params);
  void pull_configuration();
  void register_watchers();

  const Document* document_or_error(const std::string& uri, const protocol::Reply& reply);
  Analysis analyse(const Document& doc);
  void schedule_diagnostics(const std::string& uri, std::chrono::milliseconds delay);
  void publish_diagnostics(const std::string& uri);
  // Runs `answer(analysis, input)` for a request on an open document (or replies with the
  // document error): the shared start of every feature request.
  template <typename Answer>
  void answer_feature_request(const std::string& uri, const protocol::Reply& reply,
                              Answer&& answer);
  FeatureInput feature_input(const Analysis& analysis, const PositionMapper& positions,
                             const std::string& uri) const;
  void refresh_all_documents();
  void send_status(const LoadedModel& model);
  void model_load_started(const LoadedModel& model);
  void model_load_finished(const LoadedModel& model);
  std::string workspace_dir() const;
  // Trust: ask once per project content, record the answer, trust by command or code action.
  void ask_trust(const trust::Need& need);
  void trust_and_export(const trust::Need& need);
  void on_trust_project(const Json& argument, protocol::Reply reply);

  boost::asio::io_context& io_;
  Transport& transport_;
  Logger& log_;
  protocol::MethodTable methods_;
  DocumentStore documents_;
  std::unique_ptr<ModelStore> models_;
  WorkerSettings worker_settings_;

  Lifecycle lifecycle_ = Lifecycle::Uninitialized;
  bool shutdown_requested_ = false;
  bool finished_ = false;
  protocol::InitializeParams client_;
  protocol::PositionEncoding encoding_ = protocol::PositionEncoding::Utf16;
  project::ModelSettings init_settings_;   // initializationOptions
  project::ModelSettings pulled_settings_; // workspace/configuration or didChangeConfiguration
  TrustGate trust_;
  std::map<std::string, std::unique_ptr<boost::asio::steady_timer>> diagnostic_timers_;
  // Project files of open configs: an edit on disk re-resolves every config,
  // also for clients that cannot watch files.
  std::map<std::string, FileStamp> project_files_;
  project::ProjectFileCache project_file_cache_; // their parses, re-read when changed
  std::set<std::string> reported_project_problems_;
  // The last parse of the documents used most recently (a 10 MB config is read
  // once per edit). A parse takes ~14 times its text, so only a few are kept.
  struct ParsedDocument {
    std::uint64_t revision = 0;
    std::shared_ptr<const config::ConfigDocument> config;
    std::uint64_t last_used = 0;
  };
  std::map<std::string, ParsedDocument> parsed_;
  std::uint64_t parse_clock_ = 0;
  boost::asio::steady_timer project_poll_;
  boost::asio::steady_timer release_models_; // drops models no open config uses
  void poll_project_files();

  // $/progress for each model's load: token, and whether the client accepted it.
  struct Progress {
    std::string token;
    bool created = false; // the client answered window/workDoneProgress/create
    bool begun = false;
    std::optional<std::string> end_message; // set when the load finished
  };
  std::map<std::string, std::shared_ptr<Progress>> progress_;
  int next_progress_ = 1;
};

} // namespace opscope::lsp
