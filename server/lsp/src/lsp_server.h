// The LSP session: binds each method in one table, tracks the lifecycle and
// the open documents, resolves each config to its model, and answers from the
// in-memory index while models load in child processes.
#pragma once

#include "background_jobs.h"
#include "documents.h"
#include "feature_bridge.h"
#include "free_memory.h"
#include "log.h"
#include "measurements.h"
#include "model_progress.h"
#include "model_store.h"
#include "opscope/project/project.h"
#include "rewrites.h"
#include "schema_dumps.h"
#include "transport.h"
#include "trust_gate.h"

#include "opscope/protocol/lsp_types.h"
#include "opscope/protocol/method_table.h"
#include "opscope/workspace/workspace.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <variant>
#include <vector>

namespace opscope::lsp {

// The session's commands (workspace/executeCommand).
inline constexpr const char* kShowSummary = "opscope.showSummary";
inline constexpr const char* kReloadModel = "opscope.reloadModel";
inline constexpr const char* kTrustProject = "opscope.trustProject";

// LSP glue over the workspace (engine/workspace): binds methods, converts types, runs the
// timers and the model store; the workspace decides what each config is checked against.
class LspServer : public MessageHandler, private workspace::Host {
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

  using Analysis = workspace::Analysis;

  // workspace::Host: models load in child processes; consent is asked in the editor.
  const workspace::Model* ensure(const project::ModelSpec& spec) override;
  bool allows(const trust::Need& need) override { return trust_.allows(need); }
  std::string untrusted_message(const trust::Need& need) const override {
    return trust_.diagnostic(need);
  }
  // A queued or running check may read a parse; when none is, every finished check has
  // released what it read (BackgroundJobs::pending).
  bool parses_in_use() const override {
    return checks_.pending() != 0 || measurements_.reading_parses();
  }
  void release(std::shared_ptr<const void> stale) override;
  void make_schema_dump(const workspace::SchemaDump& dump) override { schema_dumps_.make(dump); }
  void schema_dump_finished(const std::string& problem);
  void update_workspace_settings();

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
  // Frees `kept` on the background thread, after any check still reading it, and gives the
  // memory back to the system (glibc kept a closed 20,000-key config's 190 MB).
  void free_later(const std::string& what, std::shared_ptr<void> kept);
  // Features.
  void on_completion(const protocol::TextDocumentPositionParams& params, protocol::Reply reply);
  void on_hover(const protocol::TextDocumentPositionParams& params, protocol::Reply reply);
  void on_definition(const protocol::TextDocumentPositionParams& params, protocol::Reply reply);
  void on_code_action(const protocol::CodeActionParams& params, protocol::Reply reply);
  void on_code_lens(const protocol::Json& params, protocol::Reply reply);
  // Commands (workspace/executeCommand, lsp_commands.cpp; opscope.trustProject in lsp_trust.cpp).
  std::optional<Document> command_document(const Json& argument, const protocol::Reply& reply);
  void on_show_summary(const Json& argument, protocol::Reply reply);
  void on_reload_model(const Json& argument, protocol::Reply reply);
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
                             const Document& doc) const;
  // Measures what an open config's dialect measures on its model's real weights (coreai-opt: the
  // weight error), once the model has loaded (Measurements).
  void measure_weights(const Document& doc, const Analysis& analysis);
  // Where the weights of `analysis`'s model are (an archive or a checkpoint), when it has
  // any to measure; "" otherwise.
  std::string weights_of(const Analysis& analysis) const;
  // Refreshes the lenses; computes `uri`'s rewrites if its actions were asked for.
  void weights_measured(const std::string& uri);
  // Computes the rewrites of `doc`'s revision once what they need is measured.
  void rewrite_if_measured(const Document& doc);
  // The dialect's rewrites (coreai-opt: configs proposed for a size budget) as code actions.
  void add_rewrite_actions(const protocol::CodeActionParams& params, const Analysis& analysis,
                           Json& actions);
  // The context of `doc`'s answers, with what was measured of it so far.
  dialects::Context measured_context(const Analysis& analysis, const Document& doc) const;
  void refresh_all_documents();
  void model_load_finished(const LoadedModel& model);
  std::string workspace_dir() const;
  // Trust (lsp_trust.cpp): ask once per project content, record the answer, trust by command or
  // code action.
  void read_workspace_trust(const Json& initialization_options);
  void offer_trust(const Analysis& analysis);
  void add_trust_action(const Analysis& analysis, const std::string& uri, Json& actions) const;
  void ask_trust(const trust::Need& need);
  void trust_and_export(const trust::Need& need);
  void on_trust_project(const Json& argument, protocol::Reply reply);
  std::variant<std::vector<trust::Need>, std::string> trust_needs(const std::string& target);

  boost::asio::io_context& io_;
  Transport& transport_;
  Logger& log_;
  protocol::MethodTable methods_;
  // Outgoing notifications, typed (clangd's LSPBinder::outgoingNotification): each method's
  // name is written once, here.
  template <typename Params> using Outgoing = std::function<void(const Params&)>;
  template <typename Params> Outgoing<Params> outgoing(const char* method) {
    return [this, method](const Params& params) { transport_.notify(method, Json(params)); };
  }
  Outgoing<protocol::PublishDiagnosticsParams> notify_diagnostics_ =
      outgoing<protocol::PublishDiagnosticsParams>("textDocument/publishDiagnostics");
  Outgoing<protocol::LogMessageParams> notify_log_ =
      outgoing<protocol::LogMessageParams>("window/logMessage");
  Outgoing<protocol::LogMessageParams> notify_message_ =
      outgoing<protocol::LogMessageParams>("window/showMessage");
  DocumentStore documents_;
  std::unique_ptr<ModelStore> models_;
  ModelProgress model_progress_{transport_}; // opscope/status and $/progress of each load
  WorkerSettings worker_settings_;
  // The schemas of the project interpreters' libraries, dumped once trusted (make_schema_dump).
  SchemaDumps schema_dumps_{
      io_, log_,
      std::min<std::chrono::milliseconds>(workspace::kSchemaDumpTimeout, worker_settings_.timeout),
      [this](const workspace::SchemaDump&, const std::string& problem) {
        schema_dump_finished(problem);
      }};

  Lifecycle lifecycle_ = Lifecycle::Uninitialized;
  bool shutdown_requested_ = false;
  bool finished_ = false;
  protocol::InitializeParams client_;
  protocol::PositionEncoding encoding_ = protocol::PositionEncoding::Utf16;
  project::ModelSettings init_settings_;   // initializationOptions
  project::ModelSettings pulled_settings_; // workspace/configuration or didChangeConfiguration
  TrustGate trust_;
  workspace::Workspace workspace_;
  std::map<std::string, std::unique_ptr<boost::asio::steady_timer>> diagnostic_timers_;
  std::set<std::string> reported_project_problems_;
  boost::asio::steady_timer project_poll_;
  void poll_project_files();

  // Freed memory back to the system, from the background thread only (free_later, and when it
  // runs out of checks).
  MemoryReturn memory_return_;
  std::uint64_t stale_releases_ = 0; // keys of release()'s jobs
  // What each open config's dialect measures on real weights, on a thread of its own.
  Measurements measurements_{io_, log_, [this](const std::string& uri) { weights_measured(uri); }};
  // The rewrites of each open config whose actions were asked, on a thread of their own.
  Rewrites rewrites_{io_, log_};
  // The full checks of changed documents, off the io thread (declared last: destroyed first,
  // so no check outlives what its delivery uses).
  BackgroundJobs checks_{io_,
                         [this](const std::string& uri, const std::string& what) {
                           log_.error("checking " + uri + " failed: " + what);
                         },
                         [this] { memory_return_.if_due(); }};
};

// A command's argument (lsp_commands.cpp): the URI or path it names (the argument itself, or
// its "uri" field), and that config as saved (regular files only, size-capped: a FIFO named
// by the client would block the server; throws support::FileReadError).
std::string named_target(const Json& argument);
Document read_saved(const std::string& target);

} // namespace opscope::lsp
