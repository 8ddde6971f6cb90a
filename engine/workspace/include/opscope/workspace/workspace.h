// The engine behind both faces of opscope's config checking: the editor (server/lsp, glue
// over this) and `opscope check` (run_check.cpp). For each file it asks the dialect that
// recognises it (dialects.h) to read it (a session per open file, a document per revision),
// resolves the model (project file, settings, what the config says of its model), asks
// whether that model may run, and says what the dialect's answers get, including the one
// diagnostic when there is no current model. Knows nothing of LSP, JSON-RPC or how a model is
// loaded: the host does that (the editor in child processes, `check` in-line), so the editor
// and CI cannot disagree about a config.
#pragma once

#include "opscope/dialects/dialect.h"
#include "opscope/index/index.h"
#include "opscope/index/query.h"
#include "opscope/project/project.h"
#include "opscope/trust/consent.h"
#include "opscope/workspace/schema_dump.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
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
  // The text as its dialect (dialect_for) already read it, when the caller did (`explain` asks
  // what it refuses before it looks for a model): analysed instead of a second read of a text
  // read from disk (revision 0).
  std::shared_ptr<const dialects::DialectDocument> read;
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

// What differs between the editor and the command line. As a ReadHost: may a parse handed
// out still be read elsewhere (the editor's background checks), and what an edit made stale
// (freed off the editor's request thread).
class Host : public dialects::ReadHost {
public:
  // The model for `spec`: the editor starts loading it in the background, `check` loads it now.
  // Null when no model can be loaded (the session is not running).
  virtual const Model* ensure(const project::ModelSpec& spec) = 0;
  // May the model `need` consents to run now?
  virtual bool allows(const trust::Need& need) = 0;
  // The `untrusted-project` diagnostic's text: how to consent differs (a button, `opscope trust`).
  virtual std::string untrusted_message(const trust::Need& need) const = 0;
  // The project's library (coreai-opt) has no schema dump yet, and its interpreter may run
  // (the user allowed its model's export): make `dump`. The built-in schema serves until the dump
  // is in the cache; the editor makes it in the background and re-checks the open configs then.
  virtual void make_schema_dump(const dialects::SchemaDump& dump) { (void)dump; }
};

// The model settings that override the project file field by field.
struct Settings {
  project::ModelSettings models; // the editor settings, or the command line's model flags
  std::string base_dir;          // resolves relative paths in `models`
  // Typed by the user (the command line), not settings a repository can ship: needs no consent.
  bool chosen_by_user = false;
  // Check files without their library's markers too (a coreai-opt root key): `check` was
  // named them, while an editor opens every YAML and JSON file of a project.
  bool every_document_is_a_config = false;
};

inline constexpr const char* kNoModelCode = "no-model";
inline constexpr const char* kUntrustedProjectCode = "untrusted-project";

// What one config resolves to right now.
struct Analysis {
  const dialects::Dialect* dialect = nullptr; // the one that recognised the file
  // This revision as `dialect` read it: never null (coreai-opt reads what no other does).
  std::shared_ptr<const dialects::DialectDocument> document;
  bool resolved = false; // a config in a file: its model was looked for
  project::Resolution resolution;
  const Model* model = nullptr; // set when the model may run
  trust::Need untrusted;        // set while the model may not run (no consent yet)
  // The dialect's schema for this project (Dialect::schema_for; null: it has none).
  std::shared_ptr<const void> schema;
};

class Workspace {
public:
  Workspace(Host& host, Settings settings) : host_(host), settings_(std::move(settings)) {}

  const Settings& settings() const { return settings_; }
  void set_settings(Settings settings) { settings_ = std::move(settings); }

  // Reads `doc` (once per revision; a few files' are kept) and resolves its model.
  Analysis analyse(const Document& doc);
  // Drops what is kept for `uri`, which is no longer open: its session (a parse, a
  // resolution, the patterns its checks compiled). Returned rather than freed here: a 50,000-key
  // config's take a tenth of a second to free, which the editor does off its request thread.
  [[nodiscard]] std::shared_ptr<void> forget(const std::string& uri);
  // The models (ModelSpec::key()) the `open` configs use now: the host may stop polling and
  // rebuilding the others (a closed config, or a project whose consent an edit revoked).
  std::set<std::string> models_in_use(const std::map<std::string, Document>& open);

  // The project files of the configs analysed so far that changed on disk since the last call
  // (an edit re-resolves every config, also for editors that cannot watch files).
  std::vector<std::string> changed_project_files();

  // Why `analysis` is not checked against a current model: one diagnostic on its first line.
  std::optional<dialects::ModelProblem> model_problem(const Analysis& analysis) const;
  // What the document's answers get: the model as loaded now (no index while it loads, fails
  // or may not run), the project's compressor and the schema.
  dialects::Context context(const Analysis& analysis) const;
  // Every diagnostic of the config, the model problem first: what the editor publishes and
  // `opscope check` prints.
  std::vector<dialects::Diagnostic> diagnose(const Analysis& analysis) const;
  // diagnose(), packaged to run later on another thread: it owns or shares all it reads.
  using Diagnosis = std::function<std::vector<dialects::Diagnostic>()>;
  Diagnosis diagnosis(const Analysis& analysis) const;

private:
  // `doc` as the dialect that recognises it reads it, once per revision.
  std::shared_ptr<const dialects::DialectDocument> read(const Document& doc,
                                                        const dialects::Dialect& dialect);

  Host& host_;
  Settings settings_;
  // Each open file's session, and the document of its last revision for the files used most
  // recently (a 10 MB config's parse takes ~14 times its text, so only a few are kept).
  struct OpenFile {
    const dialects::Dialect* dialect = nullptr;
    std::unique_ptr<dialects::DialectSession> session;
    std::uint64_t revision = 0;
    std::shared_ptr<const dialects::DialectDocument> document; // null: shed
    std::uint64_t last_used = 0;
  };
  std::map<std::string, OpenFile> files_;
  std::uint64_t read_clock_ = 0;
  std::map<std::string, project::FileStamp> project_files_; // as first seen or last changed
  project::ProjectFileCache project_file_cache_;            // their parses, re-read when changed
};

} // namespace opscope::workspace
