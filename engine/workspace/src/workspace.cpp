#include "opscope/workspace/workspace.h"

#include "opscope/workspace/dialects.h"

#include <algorithm>
#include <utility>

namespace opscope::workspace {
namespace {

// Documents kept for the files used last: the one being edited and a few beside it. Others
// are read again when used.
constexpr std::size_t kMaxKeptDocuments = 4;

// Both faces say the same: the editor's user may also run `check`, and CI's the editor.
constexpr const char* kNoModel =
    "no model to check names against: create an opscope.yaml next to this config (or in a "
    "parent folder) with `model: path/to/model.pt2`, or name the model in the editor setting "
    "opscope.model (`opscope check --model MODEL` on the command line)";

// The model's index when the document can be answered on it; null while loading, and for a
// model torch.export could not trace when the document needs a graph (model_problem says why).
std::shared_ptr<const index::Index> answerable_index(const Model* model,
                                                     const dialects::DialectDocument& document) {
  if (!model || !model->index)
    return nullptr;
  if (document.needs_graph() && !model->index->provenance.untraced.empty())
    return nullptr;
  return model->index;
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

std::shared_ptr<const dialects::DialectDocument> Workspace::read(const Document& doc,
                                                                 const dialects::Dialect& dialect) {
  dialects::Revision revision{doc.path, doc.text, doc.revision,
                              settings_.every_document_is_a_config};
  if (doc.revision == 0) { // read from disk: nothing is kept
    files_.erase(doc.uri);
    return doc.read ? doc.read : dialect.open()->read(revision, host_);
  }
  OpenFile& file = files_[doc.uri];
  if (file.dialect != &dialect) { // opened, or now another library's config
    if (file.session)
      host_.release(std::shared_ptr<const void>(std::move(file.session)));
    host_.release(std::exchange(file.document, nullptr));
    file.dialect = &dialect;
    file.session = dialect.open();
  }
  if (file.revision != doc.revision || !file.document) {
    // Let go of the last revision here and now, not through the host's release queue: a
    // session patches its parse in place only when no one else holds it (what is heavy to
    // free, a session hands to the host itself).
    file.document.reset();
    file.document = file.session->read(revision, host_);
    file.revision = doc.revision;
  }
  file.last_used = ++read_clock_;
  std::shared_ptr<const dialects::DialectDocument> document = file.document;
  std::size_t kept = 0;
  OpenFile* oldest = nullptr; // the least recently used file whose document is kept
  for (auto& [uri, other] : files_)
    if (other.document) {
      ++kept;
      if (!oldest || other.last_used < oldest->last_used)
        oldest = &other;
    }
  if (kept > kMaxKeptDocuments) {
    host_.release(std::exchange(oldest->document, nullptr));
    oldest->session->shed(host_);
  }
  return document;
}

Analysis Workspace::analyse(const Document& doc) {
  Analysis out;
  // Which dialect reads a revision is asked once: every request of a revision analyses it
  // again, and the recognisers search the whole text.
  const dialects::Dialect* known = nullptr;
  if (auto it = files_.find(doc.uri);
      doc.revision != 0 && it != files_.end() && it->second.revision == doc.revision)
    known = it->second.dialect;
  const dialects::Dialect& dialect = known ? *known : dialect_for(doc.path, doc.text);
  out.dialect = &dialect;
  out.document = read(doc, dialect);
  if (!out.document->is_config() || doc.path.empty())
    return out; // not a config (or not a file): no model needed
  out.resolved = true;
  out.resolution = project::resolve_model(doc.path, out.document->model_hints(), settings_.models,
                                          settings_.base_dir, &project_file_cache_);
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
  const std::optional<project::ModelSpec>& model = out.resolution.model;
  dialects::ProjectView project;
  if (model) {
    project.python = model->python;
    project.may_run_python =
        model->kind == project::ModelKind::PythonTarget && !out.untrusted.needed();
  }
  project.make_schema_dump = [this](const SchemaDump& dump) { host_.make_schema_dump(dump); };
  out.schema = dialect.schema_for(project);
  return out;
}

std::shared_ptr<void> Workspace::forget(const std::string& uri) {
  auto kept = std::make_shared<OpenFile>();
  if (auto it = files_.find(uri); it != files_.end()) {
    *kept = std::move(it->second);
    files_.erase(it);
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

std::optional<dialects::ModelProblem> Workspace::model_problem(const Analysis& analysis) const {
  using dialects::ModelProblem;
  using dialects::Severity;
  if (!analysis.resolved)
    return std::nullopt;
  const project::Resolution& resolution = analysis.resolution;
  if (!resolution.model)
    // A config naming its own model says why that one was not found.
    return ModelProblem{resolution.project_file.empty() && !analysis.document->model_hints().model
                            ? kNoModel
                            : resolution.problem,
                        Severity::Error, kNoModelCode};
  if (analysis.untrusted.needed())
    return ModelProblem{host_.untrusted_message(analysis.untrusted), Severity::Error,
                        kUntrustedProjectCode};
  const Model* model = analysis.model;
  if (model && model->index && !answerable_index(model, *analysis.document))
    // PEFT's and llm-compressor's names are module names, which such a model has.
    return ModelProblem{"opscope has only the module names of " + model->spec.written +
                            ", no graph: " + model->index->provenance.untraced + "; " +
                            std::string(analysis.dialect->name()) +
                            " configs are resolved on the graph's ops",
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

dialects::Context Workspace::context(const Analysis& analysis) const {
  dialects::Context context;
  context.compressor = analysis.resolution.compressor;
  context.schema = analysis.schema;
  if ((context.index = answerable_index(analysis.model, *analysis.document)))
    context.queries = analysis.model->queries;
  return context;
}

std::vector<dialects::Diagnostic> Workspace::diagnose(const Analysis& analysis) const {
  return diagnosis(analysis)();
}

Workspace::Diagnosis Workspace::diagnosis(const Analysis& analysis) const {
  return [document = analysis.document, context = context(analysis),
          problem = model_problem(analysis)] {
    std::vector<dialects::Diagnostic> out;
    if (problem)
      out.push_back(
          {document->problem_range(), problem->severity, problem->code, problem->message, {}});
    std::vector<dialects::Diagnostic> answers = document->diagnostics(context);
    out.insert(out.end(), std::make_move_iterator(answers.begin()),
               std::make_move_iterator(answers.end()));
    return out;
  };
}

} // namespace opscope::workspace
