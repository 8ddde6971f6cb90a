// The engine behind both faces of opscope's config checking: the editor (server/lsp, glue
// over this) and `opscope check` (run_check.cpp). For each config it keeps the parse, resolves
// the model (project file, settings, the config's root key and execution_mode), asks whether
// that model may run, and says what the features get, including the one diagnostic on the
// first line when there is no current model. Knows nothing of LSP, JSON-RPC or how a model is
// loaded: the host does that (the editor in child processes, `check` in-line), so the editor
// and CI cannot disagree about a config.
#pragma once

#include "opscope/config/document.h"
#include "opscope/dialects/dialect.h"
#include "opscope/features/diagnostics.h"
#include "opscope/features/model.h"
#include "opscope/index/index.h"
#include "opscope/index/query.h"
#include "opscope/project/project.h"
#include "opscope/resolve/resolve.h"
#include "opscope/schema/schema.h"
#include "opscope/trust/consent.h"
#include "opscope/workspace/schema_dump.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace opscope::workspace {

// A config's text as the workspace is given it.
struct Document {
  std::string uri;
  std::string path; // local path, empty for non-file URIs
  std::string language_id;
  int version = 0;
  std::string text;
  std::uint64_t revision = 0; // unique per text the editor has held; 0: read from disk
  // read_config(text, guess_format(path, text)), when the caller already read it (`explain`
  // refuses a bad config before it looks for a model): analysed instead of a second parse of a
  // text read from disk (revision 0).
  std::shared_ptr<const config::ConfigDocument> config;
};

enum class ModelState { Loading, Ready, Failed };
const char* to_string(ModelState state);

// One model as the features see it; the host owns and loads it.
struct Model {
  project::ModelSpec spec;
  ModelState state = ModelState::Loading;
  std::shared_ptr<const index::Index> index; // the last good one; null before the first
  std::string error;                         // why the latest load failed
  // The features' lookups over `index`, built once per load and replaced with it.
  std::shared_ptr<const index::QueryEngine> queries;
};

// What differs between the editor and the command line.
class Host {
public:
  virtual ~Host() = default;
  // The model for `spec`: the editor starts loading it in the background, `check` loads it now.
  // Null when no model can be loaded (the session is not running).
  virtual const Model* ensure(const project::ModelSpec& spec) = 0;
  // May the model `need` consents to run now?
  virtual bool allows(const trust::Need& need) = 0;
  // The `untrusted-project` diagnostic's text: how to consent differs (a button, `opscope trust`).
  virtual std::string untrusted_message(const trust::Need& need) const = 0;
  // May another thread still read a parse the workspace handed out (the editor's background
  // checks)? Then an edit inside a key patches a copy instead of the parse itself.
  virtual bool parses_in_use() const { return false; }
  // What an edit made stale (the last revision's parse and resolution of every key, ~20 M
  // instructions to free for 50,000 keys): the editor frees it off the thread that answers
  // requests; here it is freed at once.
  virtual void release(std::shared_ptr<const void> stale) { (void)stale; }
  // The project's coreai-opt has no schema dump yet, and its interpreter may run (the user
  // allowed its model's export): make `dump`. The built-in schema serves until the dump is in
  // the cache; the editor makes it in the background and re-checks the open configs then.
  virtual void make_schema_dump(const SchemaDump& dump) { (void)dump; }
};

// The model settings that override the project file field by field.
struct Settings {
  project::ModelSettings models; // the editor settings, or the command line's model flags
  std::string base_dir;          // resolves relative paths in `models`
  // Typed by the user (the command line), not settings a repository can ship: needs no consent.
  bool chosen_by_user = false;
  // Check files without a coreai-opt root key too: `check` was named them, while an editor
  // opens every YAML and JSON file of a project.
  bool every_document_is_a_config = false;
};

inline constexpr const char* kNoModelCode = "no-model";
inline constexpr const char* kUntrustedProjectCode = "untrusted-project";

// The compiled patterns a document's last check used, held in its model's QueryEngine while the
// document is open: the next check finds them compiled, and they are freed when it closes.
class HeldPatterns {
public:
  // Holds `hold` instead (the one it replaces lets its patterns go, once no lock is held).
  void replace(index::QueryEngine::Hold hold) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::swap(hold_, hold);
  }

private:
  std::mutex mutex_; // a check on the background thread and a code action may both replace it
  index::QueryEngine::Hold hold_;
};

// What one config resolves to right now.
struct Analysis {
  std::shared_ptr<const config::ConfigDocument> config;
  bool resolved = false; // a config in a file: its model was looked for
  project::Resolution resolution;
  const Model* model = nullptr; // set when the model may run
  trust::Need untrusted;        // set while the model may not run (no consent yet)
  // Which entry decides each op: computed once per (config revision, model index) when first
  // asked (the check or a hover), shared by everything that reads this analysis.
  std::shared_ptr<const resolve::SharedResolution> decisions;
  // `decisions` outlive this analysis (an editor revision, kept for the requests that
  // follow); false for a text read from disk (`check`), which nothing asks about later.
  bool decisions_kept = false;
  // coreai-opt's models for this config, found once for every feature: the dump of the
  // project's coreai-opt version, else the built-in copy. Never null.
  std::shared_ptr<const schema::Schema> schema;
  // Where its check keeps the patterns it compiled, for an open document (revision != 0).
  std::shared_ptr<HeldPatterns> held_patterns;
  // Set when a registered dialect (dialects.h) recognised the document: it answers
  // for it instead of coreai-opt's rules.
  std::shared_ptr<const dialects::DialectDocument> dialect;
};

class Workspace {
public:
  Workspace(Host& host, Settings settings) : host_(host), settings_(std::move(settings)) {}

  const Settings& settings() const { return settings_; }
  void set_settings(Settings settings) { settings_ = std::move(settings); }

  // Parses `doc` (once per revision; a few parses are kept) and resolves its model.
  Analysis analyse(const Document& doc);
  // Drops what is kept for `uri`, which is no longer open: its parse, its resolution and the
  // patterns its checks compiled. Returned rather than freed here: a 50,000-key config's take
  // a tenth of a second to free, which the editor does off its request thread.
  [[nodiscard]] std::shared_ptr<void> forget(const std::string& uri);
  // The models (ModelSpec::key()) the `open` configs use now: the host may stop polling and
  // rebuilding the others (a closed config, or a project whose consent an edit revoked).
  std::set<std::string> models_in_use(const std::map<std::string, Document>& open);

  // The project files of the configs analysed so far that changed on disk since the last call
  // (an edit re-resolves every config, also for editors that cannot watch files).
  std::vector<std::string> changed_project_files();

  // Why `analysis` is not checked against a current model: one diagnostic on its first line.
  std::optional<features::ModelProblem> model_problem(const Analysis& analysis) const;
  // The model the features read (no index while it loads, fails or may not run).
  features::Model feature_model(const Analysis& analysis) const;
  // Every diagnostic of the config, the model problem first: what the editor publishes and
  // `opscope check` prints.
  std::vector<features::Diagnostic> diagnose(const Analysis& analysis) const;
  // diagnose(), packaged to run later on another thread: it owns or shares all it reads.
  using Diagnosis = std::function<std::vector<features::Diagnostic>()>;
  Diagnosis diagnosis(const Analysis& analysis) const;

  // A coreai-opt config (or any file, when the settings say so): diagnosed and given a model.
  bool is_checked(const config::ConfigDocument& config) const;

private:
  std::shared_ptr<const config::ConfigDocument> parse(const Document& doc);
  std::shared_ptr<const resolve::SharedResolution>
  decisions_for(const Document& doc, const std::shared_ptr<const index::Index>& index);
  std::shared_ptr<const schema::Schema> schema_of(const Analysis& analysis);
  // `doc` as the dialect that recognises it reads it (null: none does), once per revision.
  std::shared_ptr<const dialects::DialectDocument> dialect_document(const Document& doc);

  Host& host_;
  Settings settings_;
  // The last parse of the documents used most recently (a 10 MB config is read once per
  // edit). A parse takes ~14 times its text, so only a few are kept.
  struct ParsedDocument {
    std::uint64_t revision = 0;
    std::shared_ptr<config::ConfigDocument> config; // patched in place while no one shares it
    std::uint64_t last_used = 0;
    // The resolution of this revision against `resolved_index` (compared while it lives).
    std::shared_ptr<const resolve::SharedResolution> decisions;
    std::weak_ptr<const index::Index> resolved_index;
    std::shared_ptr<const dialects::DialectDocument> dialect; // this revision's, once read
    bool dialect_read = false;
  };
  std::map<std::string, ParsedDocument> parsed_;
  std::uint64_t parse_clock_ = 0;
  std::map<std::string, std::shared_ptr<HeldPatterns>> held_; // per open document
  std::map<std::string, project::FileStamp> project_files_;   // as first seen or last changed
  project::ProjectFileCache project_file_cache_;              // their parses, re-read when changed
};

} // namespace opscope::workspace
