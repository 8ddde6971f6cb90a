#include "opscope/workspace/workspace.h"

#include "opscope/features/dialect.h"
#include "opscope/features/schema_diagnostics.h"
#include "opscope/workspace/dialects.h"
#include "schema_source.h"

#include "opscope/config/local_edit.h"

#include <algorithm>
#include <utility>

namespace opscope::workspace {
namespace {

// Parses kept for the documents used last: the one being edited and a few beside it. Others
// are read again when used.
constexpr std::size_t kMaxParsedDocuments = 4;

// Both faces say the same: the editor's user may also run `check`, and CI's the editor.
constexpr const char* kNoModel =
    "no model to check names against: create an opscope.yaml next to this config (or in a "
    "parent folder) with `model: path/to/model.pt2`, or name the model in the editor setting "
    "opscope.model (`opscope check --model MODEL` on the command line)";

// What a check of `config` looks up in its model's QueryEngine: every key, and the module keys
// and types that scope op keys (once per run of keys under the same scope).
std::vector<index::QueryEngine::Key> queried_keys(const config::ConfigDocument& config) {
  std::vector<index::QueryEngine::Key> keys;
  keys.reserve(config.keys.size());
  const config::Scope* last_scope = nullptr;
  for (const config::PatternKey& key : config.keys) {
    keys.push_back({key.table, key.text});
    const config::Scope& scope = key.scope;
    if (scope.kind == config::Scope::Kind::Global || (last_scope && *last_scope == scope))
      continue;
    last_scope = &scope;
    keys.push_back({scope.kind == config::Scope::Kind::ModuleName ? config::Table::ModuleName
                                                                  : config::Table::ModuleType,
                    scope.key});
  }
  return keys;
}

// The model's index when it has a graph to resolve a coreai-opt config on; null while loading,
// and for a model torch.export could not trace (its module names only: model_problem says why).
const index::Index* graph_index(const Model* model) {
  return model && model->index && model->index->provenance.untraced.empty() ? model->index.get()
                                                                            : nullptr;
}

} // namespace

const char* to_string(ModelState state) {
  switch (state) {
  case ModelState::Loading:
    return "loading";
  case ModelState::Ready:
    return "ready";
  case ModelState::Failed:
    return "failed";
  }
  return "loading";
}

std::shared_ptr<const config::ConfigDocument> Workspace::parse(const Document& doc) {
  if (doc.revision == 0 && doc.config) {
    parsed_.erase(doc.uri); // read from disk: not kept
    return doc.config;
  }
  auto& cached = parsed_[doc.uri];
  if (doc.revision == 0 || cached.revision != doc.revision || !cached.config) {
    // Typing inside a key patches the last read instead of reading the whole text again (in
    // place unless someone may still read it).
    bool patched = false;
    if (doc.revision != 0 && cached.config) {
      if (cached.config.use_count() == 1 && !host_.parses_in_use()) {
        patched = config::patch_after_local_edit(*cached.config, doc.text);
      } else if (auto copy = config::reread_after_local_edit(*cached.config, doc.text)) {
        host_.release(std::exchange(cached.config,
                                    std::make_shared<config::ConfigDocument>(std::move(*copy))));
        patched = true;
      }
    }
    if (!patched)
      host_.release(
          std::exchange(cached.config, std::make_shared<config::ConfigDocument>(config::read_config(
                                           doc.text, config::guess_format(doc.path, doc.text)))));
    cached.revision = doc.revision;
    host_.release(std::exchange(cached.decisions, nullptr)); // a new text resolves anew
    cached.dialect.reset();
    cached.dialect_read = false;
  }
  cached.last_used = ++parse_clock_;
  std::shared_ptr<const config::ConfigDocument> config = cached.config;
  if (doc.revision == 0)
    parsed_.erase(doc.uri); // read from disk: not kept
  else if (parsed_.size() > kMaxParsedDocuments)
    parsed_.erase(std::min_element(parsed_.begin(), parsed_.end(), [](auto& a, auto& b) {
      return a.second.last_used < b.second.last_used;
    }));
  return config;
}

Analysis Workspace::analyse(const Document& doc) {
  Analysis out;
  out.schema = schema::builtin();
  out.config = parse(doc);
  project::ConfigHints hints{out.config->root, out.config->execution_mode};
  // Another library's config, even under a coreai-opt root key (a compressed-tensors
  // checkpoint's quantization_config): coreai-opt reads what no dialect recognises.
  if ((out.dialect = dialect_document(doc)))
    hints = {config::Compressor::None, std::nullopt, out.dialect->model()};
  if ((!is_checked(*out.config) && !out.dialect) || doc.path.empty())
    return out; // not a compression config (or not a file): no model needed
  out.resolved = true;
  out.resolution = project::resolve_model(doc.path, hints, settings_.models, settings_.base_dir,
                                          &project_file_cache_);
  if (const std::string& file = out.resolution.project_file;
      !file.empty() && !project_files_.count(file))
    project_files_[file] = project::stamp_of(file);
  if (out.resolution.model) {
    // Nothing the project or the editor settings name runs without the user's consent.
    trust::Need need = trust::consent_needed(out.resolution, settings_.models,
                                             settings_.chosen_by_user, settings_.base_dir);
    if (!host_.allows(need))
      out.untrusted = std::move(need);
    else
      out.model = host_.ensure(*out.resolution.model);
  }
  if (out.dialect)
    return out; // coreai-opt's schema and resolution are not this dialect's
  out.schema = schema_of(out);
  if (doc.revision != 0) {
    std::shared_ptr<HeldPatterns>& held = held_[doc.uri];
    if (!held)
      held = std::make_shared<HeldPatterns>();
    out.held_patterns = held;
  }
  if (out.model && out.model->index) {
    out.decisions = decisions_for(doc, out.model->index);
    out.decisions_kept = doc.revision != 0;
  }
  return out;
}

std::shared_ptr<const dialects::DialectDocument> Workspace::dialect_document(const Document& doc) {
  auto read = [&]() -> std::shared_ptr<const dialects::DialectDocument> {
    const dialects::Dialect* dialect = dialect_for(doc.path, doc.text);
    return dialect ? dialect->read(doc.path, doc.text) : nullptr;
  };
  auto cached = parsed_.find(doc.uri);
  if (doc.revision == 0 || cached == parsed_.end())
    return read();
  // Read once per revision: every completion and hover of a script would parse it again.
  if (!cached->second.dialect_read) {
    cached->second.dialect = read();
    cached->second.dialect_read = true;
  }
  return cached->second.dialect;
}

std::shared_ptr<const schema::Schema> Workspace::schema_of(const Analysis& analysis) {
  SchemaChoice choice = choose_schema(analysis.resolution);
  // The dump runs the project's interpreter: only where its model's export may run too.
  const std::optional<project::ModelSpec>& model = analysis.resolution.model;
  if (choice.missing_version && model && model->kind == project::ModelKind::PythonTarget &&
      !analysis.untrusted.needed()) {
    host_.make_schema_dump(
        {model->python, *choice.missing_version, schema_cache_path(*choice.missing_version)});
    choice = choose_schema(analysis.resolution); // made in-line by `check`
  }
  return choice.schema;
}

std::shared_ptr<const resolve::SharedResolution>
Workspace::decisions_for(const Document& doc, const std::shared_ptr<const index::Index>& index) {
  auto cached = parsed_.find(doc.uri);
  if (doc.revision == 0 || cached == parsed_.end())
    return std::make_shared<const resolve::SharedResolution>();
  ParsedDocument& parsed = cached->second;
  // A live weak pointer to the same address is the same index (a freed one cannot lock).
  if (!parsed.decisions || parsed.resolved_index.lock() != index) {
    parsed.decisions = std::make_shared<const resolve::SharedResolution>();
    parsed.resolved_index = index;
  }
  return parsed.decisions;
}

std::shared_ptr<void> Workspace::forget(const std::string& uri) {
  struct Kept {
    ParsedDocument parsed;
    std::shared_ptr<HeldPatterns> held;
  };
  auto kept = std::make_shared<Kept>();
  if (auto it = parsed_.find(uri); it != parsed_.end()) {
    kept->parsed = std::move(it->second);
    parsed_.erase(it);
  }
  if (auto it = held_.find(uri); it != held_.end()) {
    kept->held = std::move(it->second);
    held_.erase(it);
  }
  return kept;
}

std::set<std::string> Workspace::models_in_use(const std::map<std::string, Document>& open) {
  std::set<std::string> keys;
  for (const auto& [uri, doc] : open)
    if (const Model* model = analyse(doc).model)
      keys.insert(model->spec.key());
  return keys;
}

std::vector<std::string> Workspace::changed_project_files() {
  std::vector<std::string> changed;
  for (auto& [path, stamp] : project_files_)
    if (project::FileStamp now = project::stamp_of(path); now != stamp) {
      stamp = now;
      changed.push_back(path);
    }
  return changed;
}

std::optional<features::ModelProblem> Workspace::model_problem(const Analysis& analysis) const {
  using features::ModelProblem;
  using features::Severity;
  if (!analysis.resolved)
    return std::nullopt;
  const project::Resolution& resolution = analysis.resolution;
  if (!resolution.model)
    return ModelProblem{resolution.project_file.empty() && !analysis.dialect ? kNoModel
                                                                             : resolution.problem,
                        Severity::Error, kNoModelCode};
  if (analysis.untrusted.needed())
    return ModelProblem{host_.untrusted_message(analysis.untrusted), Severity::Error,
                        kUntrustedProjectCode};
  const Model* model = analysis.model;
  if (model && model->index && !graph_index(model) && !analysis.dialect)
    // PEFT's and llm-compressor's names are module names, which such a model has.
    return ModelProblem{"opscope has only the module names of " + model->spec.written +
                            ", no graph: " + model->index->provenance.untraced +
                            "; coreai-opt configs are resolved on the graph's ops",
                        Severity::Error, kNoModelCode};
  if (!model || model->state != ModelState::Failed)
    return std::nullopt; // loading: the names come when it is ready
  // A project file is named; settings and the command line are what the user just set.
  std::string origin =
      model->spec.origin == resolution.project_file ? " (from " + model->spec.origin + ")" : "";
  bool last_good = model->index != nullptr;
  return ModelProblem{"opscope cannot load the model " + model->spec.written + origin + ": " +
                          model->error + (last_good ? "; showing the last good index" : ""),
                      last_good ? Severity::Warning : Severity::Error, kNoModelCode};
}

bool Workspace::is_checked(const config::ConfigDocument& config) const {
  if (config.format == config::Format::Python)
    // Any other Python file is not ours, unless from_dict's document has a misremembered root.
    return config.root != config::Compressor::None || !config.unknown_fields.empty();
  return config.root != config::Compressor::None || settings_.every_document_is_a_config;
}

features::Model Workspace::feature_model(const Analysis& analysis) const {
  features::Model model;
  model.compressor = analysis.resolution.compressor;
  if (graph_index(analysis.model)) {
    model.index = analysis.model->index.get();
    model.queries = analysis.model->queries.get();
    model.resolution = analysis.decisions.get();
  }
  return model;
}

std::vector<features::Diagnostic> Workspace::diagnose(const Analysis& analysis) const {
  return diagnosis(analysis)();
}

Workspace::Diagnosis Workspace::diagnosis(const Analysis& analysis) const {
  if (analysis.dialect) {
    std::shared_ptr<const index::Index> index; // the model as loaded now, kept while it runs
    if (analysis.model)
      index = analysis.model->index;
    return [document = analysis.dialect, index, problem = model_problem(analysis)] {
      return features::diagnose_dialect(*document, index.get(), problem);
    };
  }
  if (!is_checked(*analysis.config))
    return [held = analysis.held_patterns] {
      if (held)
        held->replace({}); // no longer a config: nothing to keep compiled
      return std::vector<features::Diagnostic>{};
    };
  std::shared_ptr<const index::Index> index; // kept alive for the raw pointers in `model`
  std::shared_ptr<const index::QueryEngine> queries;
  if (graph_index(analysis.model)) {
    index = analysis.model->index;
    queries = analysis.model->queries;
  }
  return [config = analysis.config, model = feature_model(analysis), index, queries,
          decisions = analysis.decisions, size_wanted = analysis.decisions_kept,
          problem = model_problem(analysis), held = analysis.held_patterns,
          schema = analysis.schema ? analysis.schema : schema::builtin()] {
    // Every pattern of the config compiled once, up front, and kept for its next check (the one
    // held for the previous check lets go only of the patterns no longer written).
    index::QueryEngine::Hold hold;
    if (queries)
      hold = queries->hold(queried_keys(*config));
    std::vector<features::Diagnostic> out =
        features::diagnose(*config, model.index ? &model : nullptr, problem);
    // The projected size of this revision, for the hover and code lens that follow (computed
    // here, off the request thread, with the resolution the diagnostics just used).
    if (decisions && size_wanted && model.index)
      decisions->size(*config, *model.index, model.queries);
    const coreai::CompressorInfo* compressor = coreai::find(model.compressor);
    std::vector<features::Diagnostic> more = features::schema_diagnostics(
        *config, *schema, compressor ? compressor->root_key : std::string_view());
    // A misremembered root key is already named, with the root it means, as unknown-field.
    std::erase_if(more, [&](const features::Diagnostic& d) {
      return d.code == "schema-root" &&
             std::any_of(out.begin(), out.end(), [&](const features::Diagnostic& o) {
               return o.code == "unknown-field" && o.range == d.range;
             });
    });
    out.insert(out.end(), std::make_move_iterator(more.begin()),
               std::make_move_iterator(more.end()));
    if (held)
      held->replace(std::move(hold));
    return out;
  };
}

} // namespace opscope::workspace
