// A dialect: everything opscope knows about one library's configs (coreai-opt, PEFT,
// llm-compressor, ...), in one folder under core/dialects. The engine (workspace, the editor,
// `check`, `explain`) holds a DialectDocument and asks it; it names no library. A dialect
// registers with one line in engine/workspace/src/dialects.cpp; coreai-opt, registered last,
// reads what no other dialect recognises.
// Plain structs in config positions (0-based lines, byte columns): no LSP, no LibTorch. The
// engine adds what is the same for every dialect (the model problem, LSP types, limits).
#pragma once

#include "opscope/config/positions.h"
#include "opscope/dialects/answers.h"
#include "opscope/dialects/workers.h"
#include "opscope/index/index.h"
#include "opscope/index/query.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace opscope::dialects {

// What the config says of its model, for the project's resolution (project::resolve_model).
struct ModelHints {
  index::Compressor compressor = index::Compressor::None; // whose registered ops count
  std::optional<index::Mode> mode; // the mode the config runs in, when it says (graph, eager)
  // The model the config names itself (a Hugging Face id or a folder with a config.json,
  // relative to the config): used when neither the project file nor the editor names one.
  std::optional<std::string> model = std::nullopt;
};

// A schema dump of the library installed for a project's interpreter: made by the export
// helper with that interpreter (so only with the consent its model's export has), then moved
// into the cache where every later read finds it. The hosts run it: the editor in the
// background, `check` in-line.
struct SchemaDump {
  std::string python;          // the project's interpreter
  std::string version;         // the library version its venv holds (from its dist-info folder)
  std::string path;            // where the dump belongs: <cache>/schema/<library>-<version>.json
  std::string library;         // as messages name it ("coreai-opt")
  std::string builtin_version; // of the built-in schema that serves until the dump is there
  std::uint64_t max_bytes = 0; // what the helper may write; more is refused unread
  // Why `text`, what the helper wrote, is not a dump of this library at `version`; nothing
  // when it is (the host then moves it into place).
  std::function<std::optional<std::string>(const std::string& text)> why_not_a_dump;

  // Where the helper writes it first: beside `path`, unique to this process.
  std::string temporary() const;
  // One dump per interpreter and version.
  std::string key() const { return python + "\n" + version; }
};

// What the engine knows of the config's project when a dialect picks its schema.
struct ProjectView {
  std::string python;          // the interpreter of the project's model ("" without one)
  bool may_run_python = false; // the user consented to run it (its model is a Python target)
  std::function<void(const SchemaDump&)> make_schema_dump; // made now (`check`) or later
};

// What the host measured of an open document, for its answers (Context::measured).
struct Measured {
  std::shared_ptr<const void> result; // the last Measurement::run() result; null before one
  bool current = false;               // `result` is of this revision
  bool measuring = false;             // a measurement of this revision is under way
};

// What the engine hands a document's answers: the model as it is loaded now.
struct Context {
  // Null while no model is loaded (or it failed, or may not run), and for a model with names
  // only when the document needs_graph(): answers that need none still come. Shared, so an
  // answer computed off the request thread keeps the model it started on.
  std::shared_ptr<const index::Index> index;
  std::shared_ptr<const index::QueryEngine> queries; // lookups over `index`, built when it loaded
  index::Compressor compressor = index::Compressor::None; // as the project resolved it
  // The schema the dialect chose for this project (Dialect::schema_for), of its own type;
  // null: none.
  std::shared_ptr<const void> schema;
  // What the host measured of this document in the background (DialectDocument::measurement);
  // null when nothing was.
  std::shared_ptr<const Measured> measured;
};

// What a document measures on the model's real weights (coreai-opt: its per-layer weight
// error), run by the editor off its request thread. Made on the request thread; prepare() and
// run() are called on the measuring thread, in that order.
class Measurement {
public:
  virtual ~Measurement() = default;
  // Reads what it needs of the document and lets go of it (no parse is held while the worker
  // runs): the text of what it will measure. Equal texts on the same weights measure the same,
  // so the host keeps results by it.
  virtual std::string prepare() = 0;
  // Measures with `worker`: the result, of the dialect's own type.
  virtual std::shared_ptr<const void> run(const WeightsWorker& worker,
                                          std::chrono::milliseconds timeout) = 0;
  // A kept result of an equal measurement, made this revision's (coreai-opt: its rows name
  // this revision's entries).
  virtual std::shared_ptr<const void> reuse(const std::shared_ptr<const void>& kept) = 0;
  // Whether a result may be kept (a worker that failed is asked again after the next edit).
  virtual bool keeps(const std::shared_ptr<const void>& result) const = 0;
};

// What `opscope explain`'s host does on a document's behalf: where the model and its weights
// are, its index in another mode, and the LibTorch worker that reads the weights.
class ExplainHost {
public:
  virtual ~ExplainHost() = default;
  // What the model argument named (an archive, an index file, a target, hf:ID), as shown.
  virtual std::string model() const = 0;
  // Where its real weights are read: the project's `weights:`, an hf: model's checkpoint,
  // else model().
  virtual std::string weights() const = 0;
  // The same model indexed in `mode` (coreai-opt sizes an eager prepare() on the eager index).
  // Throws with why it cannot be.
  virtual index::Index index_in(index::Mode mode) const = 0;
  virtual const WeightsWorker& weights_worker() const = 0;
};

enum class ExplainFormat { Text, Json, Page };

// One `opscope explain` of a document.
struct ExplainRequest {
  const std::string& config_path; // as the user named it
  const Context& context;         // context.index: the model, loaded
  ExplainFormat format = ExplainFormat::Text;
  std::string page_path; // ExplainFormat::Page: the file to write ("-": `out`)
  bool color = false;    // Text: painted for a terminal
  std::ostream& out;
  std::ostream& err;
  const ExplainHost& host;
};

// Why explain stops: thrown by DialectDocument::explain and explain_refusal. `usage`: the
// command line asked for what this config cannot give (a mode, a page), not a fault of the
// config or its model.
class ExplainError : public std::runtime_error {
public:
  explicit ExplainError(const std::string& message, bool usage = false)
      : std::runtime_error(message), usage(usage) {}
  bool usage;
};

// A rewrite of the whole config offered as a code action (coreai-opt: a config proposed for a
// size budget), computed in the background on the model's real weights once the user asks for
// the document's actions.
struct Rewrite {
  std::string title;       // the action's title
  std::string label;       // what it does in a few words, for an editor that confirms edits
  std::string description; // and in more
  config::Range replaced;  // the lines it replaces (from the start of the first line)
  std::string text;        // their new text
};

// Where a document offers rewrites, and what an editor shows while they are computed.
struct RewritesOffered {
  int line = 0;              // where they show unasked (coreai-opt: its root key's line)
  std::string pending_title; // a disabled action's, while they are computed
  std::string pending_reason;
};

// The rewrites of one revision: run() on a thread of the host's (seconds).
class Rewriting {
public:
  virtual ~Rewriting() = default;
  // The rewrites that apply; none, with `none` saying why when it is worth a log line.
  virtual std::vector<Rewrite> run(const WeightsWorker& worker, std::chrono::milliseconds timeout,
                                   std::string& none) = 0;
};

class DialectSession;

// One revision of one file, read by its dialect. Immutable: the editor's background check and
// its requests share it (the workspace reads it once per revision).
class DialectDocument {
public:
  virtual ~DialectDocument() = default;

  // Holds no config the dialect can read (a file recognised, but half-typed or empty).
  virtual bool empty() const = 0;
  // The model the config names itself (a Hugging Face id or a path: PEFT's
  // base_model_name_or_path), used when no opscope.yaml or setting names one.
  virtual std::optional<std::string> model() const = 0;

  // What the project resolution reads from the config (defaults: the model() it names).
  virtual ModelHints model_hints() const {
    return {index::Compressor::None, std::nullopt, model()};
  }
  // A file the dialect reads yet finds no config in is given no model and no check (an
  // editor opens every YAML file); `check`, named the file, says why_not_a_config().
  virtual bool is_config() const { return true; }
  virtual std::string why_not_a_config() const { return ""; }
  // Where the engine says why there is no model (the first line, or the config's root key).
  virtual config::Range problem_range() const { return {}; }
  // Where the library's own loader (PyYAML, json) would refuse this text, or where the reader
  // stopped on hostile input; `explain` refuses the file at the first. The default diagnostics
  // report each, model or not.
  virtual std::vector<config::SyntaxProblem> syntax_problems() const { return {}; }
  // Resolved on the graph's ops (a model torch.export could not trace is no model for it).
  virtual bool needs_graph() const { return false; }

  // What the engine asks. The defaults answer from the model's names alone with the three
  // hooks below, and nothing while no model is loaded.
  virtual std::vector<Diagnostic> diagnostics(const Context& context) const;
  virtual std::optional<Hover> hover_at(const Context& context, config::Position cursor) const;
  virtual CompletionList completion(const Context& context, config::Position cursor,
                                    const CompletionOptions& options) const;
  virtual std::vector<CodeLens> code_lenses(const Context& context) const {
    (void)context;
    return {};
  }
  // What to measure on the model's real weights at `weights` (an archive or a checkpoint) for
  // this revision's answers; null when nothing (the default).
  virtual std::unique_ptr<Measurement> measurement(const Context& context,
                                                   const std::string& weights) const {
    (void)context, (void)weights;
    return nullptr;
  }
  // Whether this document offers rewrites on `weights` (the model's real weights), and where.
  virtual std::optional<RewritesOffered> rewrites(const Context& context,
                                                  const std::string& weights) const {
    (void)context, (void)weights;
    return std::nullopt;
  }
  // The rewriting of this revision (`path`, `text`: the file as the editor holds it), once
  // what it needs is measured (context.measured); null until then.
  virtual std::unique_ptr<Rewriting> rewriting(const Context& context, const std::string& weights,
                                               const std::string& path,
                                               const std::string& text) const {
    (void)context, (void)weights, (void)path, (void)text;
    return nullptr;
  }
  // Where in the model's Python source what the name at `cursor` matches is called.
  virtual std::vector<SourceLocation> definition(const Context& context,
                                                 config::Position cursor) const {
    (void)context, (void)cursor;
    return {};
  }

  // The hooks of a dialect whose answers need only the model's module names (PEFT,
  // llm-compressor): what is wrong with the config on `model` (the model problem is the
  // engine's), the hover at `cursor`, names to complete at `cursor`, best first (each a
  // module name, written whole over the string being typed: module_name_item in written.h),
  // only those that hold what is typed before the cursor (holds_in_order in written.h), at most
  // `limit` (what the editor is sent: best first, so the rest need not be copied). The
  // defaults above pass them on as they are, the completion capped at max_items and marked
  // incomplete, so the editor asks again as the user types.
  virtual std::vector<Diagnostic> diagnose(const index::Index& model) const {
    (void)model;
    return {};
  }
  virtual std::optional<Hover> hover(const index::Index& model, config::Position cursor) const {
    (void)model, (void)cursor;
    return std::nullopt;
  }
  virtual std::vector<CompletionItem> complete(const index::Index& model, config::Position cursor,
                                               std::size_t limit) const {
    (void)model, (void)cursor, (void)limit;
    return {};
  }
  // `opscope explain`, before a model is looked for: throws ExplainError when this file cannot
  // be explained however the model turns out (no config the library loads, a value it refuses,
  // a --mode the library would not run it in: `asked_mode`).
  virtual void explain_refusal(const std::string& config_path,
                               std::optional<index::Mode> asked_mode) const {
    (void)config_path, (void)asked_mode;
  }
  // The mode the library applies this config in whatever the project says (coreai-opt: its
  // execution_mode); explain indexes the model so. Nothing: as the project resolves it.
  virtual std::optional<index::Mode> runs_in() const { return std::nullopt; }
  // Draws what it does as a page (ExplainFormat::Page); explain asks for one only then.
  virtual bool draws_a_page() const { return false; }
  // `opscope explain`: what the config does to the model, as text, JSON or a page on
  // `request.out`; problems on `request.err` as "PATH:LINE: error: ...". Returns the exit code
  // (non-zero when the library would raise on this model), or throws ExplainError.
  virtual int explain(const ExplainRequest& request) const = 0;
};

// What the engine's host offers a session while it reads.
class ReadHost {
public:
  virtual ~ReadHost() = default;
  // May another thread still read a document handed out before (the editor's background
  // checks)? Then a dialect patches a copy instead of its last parse.
  virtual bool parses_in_use() const { return false; }
  // What an edit made stale: the editor frees it off the thread that answers requests.
  virtual void release(std::shared_ptr<const void> stale) { (void)stale; }
};

// One revision of a file's text, as the engine hands it to a session.
struct Revision {
  const std::string& path;
  const std::string& text;
  std::uint64_t number = 0; // unique per text the editor held; 0: read from disk, kept by none
  // The user named the file as a config (`check` FILE): read it as one even without the
  // dialect's usual markers.
  bool named_as_config = false;
};

// One open file, read by the dialect that recognised it: what lives across its revisions
// (coreai-opt: its parse, patched in place while typing inside a key; the patterns its checks
// compiled). The workspace holds one per open file and drops it when the file closes.
class DialectSession {
public:
  virtual ~DialectSession() = default;
  virtual std::shared_ptr<const DialectDocument> read(const Revision& revision, ReadHost& host) = 0;
  // Lets go of what read() can rebuild (the last parse), keeping what saves work across
  // checks; the workspace keeps the parses of a few files only.
  virtual void shed(ReadHost& host) { (void)host; }
};

class Dialect {
public:
  virtual ~Dialect() = default;
  virtual std::string_view name() const = 0; // "peft"
  // Is the file (its path and text) this library's config? Cheap: asked of every file
  // before coreai-opt's reader (a compressed-tensors checkpoint's root key is coreai-opt's
  // `quantization_config`), so a coreai-opt config must be turned away by a text search.
  virtual bool recognises(const std::string& path, const std::string& text) const = 0;
  // Reads a file recognises() accepted. Never throws: a half-typed file yields what it can.
  virtual std::shared_ptr<const DialectDocument> read(const std::string& path,
                                                      const std::string& text) const = 0;
  // What one open file keeps across its revisions (the default keeps nothing: read() each).
  virtual std::unique_ptr<DialectSession> open() const;
  // The schema of this library as the project installs it, else a built-in copy (null: none),
  // of the dialect's own type: handed back to its documents as Context::schema.
  virtual std::shared_ptr<const void> schema_for(const ProjectView& project) const {
    (void)project;
    return nullptr;
  }
};

} // namespace opscope::dialects
