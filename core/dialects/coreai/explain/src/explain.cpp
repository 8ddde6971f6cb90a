#include "opscope/dialects/coreai/explain.h"

#include "explain_html.h"
#include "explain_parameters.h"
#include "explain_size.h"
#include "explain_weight_error.h"
#include "paint.h"

#include "opscope/coreai/compressors.h"
#include "opscope/coreai/config/values.h"
#include "opscope/features/overridden.h"
#include "opscope/features/prepare_failures.h"
#include "opscope/features/schema_diagnostics.h"
#include "opscope/json/json_string.h"
#include "opscope/resolve/eager_weights.h"
#include "opscope/resolve/pruner.h"
#include "opscope/resolve/resolve.h"
#include "opscope/schema/schema.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <ostream>

namespace opscope::coreai_explain {
namespace {

// An entry as JSON text, written once per entry: building and dumping a DOM per row cost a
// quarter of `explain --json` on GPT-384 (9,000 rows, a few dozen entries).
class EntryJson {
public:
  explicit EntryJson(const config::ConfigDocument& doc) : doc_(doc) {}
  const std::string& operator()(const resolve::Decider& decider) {
    auto key = std::pair{static_cast<int>(decider.kind), decider.key};
    auto [it, added] = written_.try_emplace(key);
    if (added) {
      if (decider.kind == resolve::Decider::Kind::DefaultGlobal) {
        it->second = "null";
      } else {
        std::string& text = it->second;
        text = "{\"path\": [";
        std::vector<std::string> path = resolve::decider_path(doc_, decider);
        for (std::size_t i = 0; i < path.size(); ++i) {
          text += i ? ", " : "";
          json::append_json_string(text, path[i]);
        }
        text += "], \"line\": " + std::to_string(resolve::decider_line(doc_, decider) + 1) + "}";
      }
    }
    return it->second;
  }

private:
  const config::ConfigDocument& doc_;
  std::map<std::pair<int, int>, std::string> written_;
};

const std::string& module_name(const index::Index& index, int module) {
  return index.modules[static_cast<std::size_t>(module)].name;
}

// Per row of resolution.ops: the shared (tied) tensors it reads (indices into shared).
std::vector<std::vector<int>> shared_of_rows(const resolve::Resolution& resolution) {
  std::vector<std::vector<int>> shared(resolution.ops.size());
  for (std::size_t s = 0; s < resolution.shared.size(); ++s)
    for (int row : resolution.shared[s].readers)
      shared[static_cast<std::size_t>(row)].push_back(static_cast<int>(s));
  return shared;
}

// {"parameter", "names" (every name of the tensor), "decided_by": {"op", "entry"}}.
nlohmann::json shared_json(const config::ConfigDocument& doc, const index::Index& index,
                           const resolve::Resolution& resolution,
                           const resolve::SharedTensor& shared) {
  const index::Parameter& p = index.parameters[static_cast<std::size_t>(shared.parameter)];
  nlohmann::json names = nlohmann::json::array({p.name});
  for (const std::string& alias : p.aliases)
    names.push_back(alias);
  const resolve::OpDecision& first = resolution.ops[static_cast<std::size_t>(shared.decided_by)];
  return {{"parameter", p.name},
          {"names", names},
          {"decided_by",
           {{"op", index.ops[static_cast<std::size_t>(first.op)].name},
            {"entry", nlohmann::json::parse(EntryJson(doc)(first.decider))}}}};
}

// The treemap page from explain's JSON text, to `out` ("-": stdout).
void write_treemap(const std::string& explain_json, const PageSource& source,
                   const std::string& out, std::ostream& stdout_stream, std::ostream& err) {
  const std::string page =
      treemap_page(treemap_data(nlohmann::json::parse(explain_json), source, kMaxRectangles));
  if (out == "-") {
    stdout_stream << page;
    return;
  }
  std::ofstream file(out, std::ios::binary | std::ios::trunc);
  file << page;
  file.close();
  if (!file)
    throw std::runtime_error("cannot write " + out + ": " + std::strerror(errno) +
                             "; give a writable path to --html");
  err << "opscope: wrote " << out << " (" << page.size() << " bytes)\n";
}

} // namespace

index::Mode runs_in(const config::ConfigDocument& config) {
  return coreai::config_mode(config.root, config.execution_mode);
}

void refuse(const config::ConfigDocument& doc, const std::string& path,
            std::optional<index::Mode> asked_mode) {
  if (!coreai::find(doc.root))
    throw dialects::ExplainError(path +
                                 ": not a coreai-opt config: explain needs one of the root keys "
                                 "coreai-opt loads (" +
                                 coreai::root_key_names() + ")");
  if (doc.execution_mode && !coreai::execution_mode_value(*doc.execution_mode))
    throw dialects::ExplainError(
        path + ":" + std::to_string(doc.execution_mode_range.start.line + 1) +
        ": execution_mode '" + *doc.execution_mode +
        "': coreai-opt runs graph or eager; fix the value (`opscope check " + path +
        "` says more)");
  const index::Mode mode = runs_in(doc);
  if (asked_mode && *asked_mode != mode)
    throw dialects::ExplainError(
        path + " runs in " + index::to_string(mode) + " mode in coreai-opt (" +
            (doc.execution_mode ? "its execution_mode"
             : mode == index::Mode::Eager
                 ? std::string(coreai::find(doc.root)->name) + " runs eager only"
                 : std::string("it has no execution_mode: eager")) +
            "), and explain follows the config: drop --mode",
        true);
}

int explain(const config::ConfigDocument& doc, const dialects::ExplainRequest& request) {
  const std::string& config_path = request.config_path;
  std::ostream& out = request.out;
  std::ostream& err = request.err;
  const schema::Schema& schema = schema::chosen_or_builtin(request.context.schema);
  const bool pruner = doc.root == config::Compressor::MagnitudePruner;
  // A config coreai-opt refuses (from_yaml / from_dict raise) does nothing: say why, as
  // `opscope check` would, instead of explaining what it cannot do.
  const coreai::CompressorInfo* compressor = coreai::find(doc.root);
  std::size_t refusals = 0;
  for (const features::Diagnostic& d : features::schema_diagnostics(
           doc, schema, compressor ? compressor->root_key : std::string_view()))
    if (d.severity == features::Severity::Error) {
      err << config_path << ":" << d.range.start.line + 1 << ":" << d.range.start.byte_col + 1
          << ": error: " << d.message << " [" << d.code << "]\n";
      ++refusals;
    }
  if (refusals)
    throw dialects::ExplainError(config_path + ": coreai-opt refuses this config (its from_yaml " +
                                 "raises), so it configures nothing; fix the " +
                                 (refusals == 1 ? std::string("error") : "errors") + " above");
  const index::Index& index = *request.context.index;
  const dialects::ExplainHost& host = request.host;
  if (pruner && index.mode != index::Mode::Eager)
    throw dialects::ExplainError(std::string(coreai::find(doc.root)->class_name) +
                                     " runs eager only: give an eager-mode index or a .pt2 "
                                     "archive, not a graph-mode index",
                                 true);
  // Eager mode (the pruner, the palettizer, execution_mode: eager): the compressor's own
  // registered calls, not the graph Quantizer's annotation.
  resolve::Resolution resolution = resolve::resolve_config(doc, index);
  if (doc.objects.size() > 1) // each is resolved on its own; the table shows the first
    err << config_path << ": builds " << doc.objects.size()
        << " config objects; this is what the first one does (check reports on all)\n";

  for (const resolve::Unresolved& u : resolution.unresolved) {
    const config::PatternKey& key = doc.keys[static_cast<std::size_t>(u.key)];
    err << config_path << ":" << key.range.start.line + 1 << ": '" << key.text
        << "' cannot be evaluated here (" << u.reason
        << "); it is counted as matching nothing, so what it governs may be shown "
           "under another entry\n";
  }

  // Accepted by the loader, but prepare() raises on this model: nothing to explain either.
  if (resolve::resolves_eager_weights(doc, index))
    if (std::optional<nlohmann::ordered_json> values = config::read_values(doc)) {
      std::vector<features::Diagnostic> failures = features::prepare_failures(
          doc, index, resolve::resolve_eager_weights(doc, *values, index));
      for (const features::Diagnostic& d : failures)
        err << config_path << ":" << d.range.start.line + 1 << ":" << d.range.start.byte_col + 1
            << ": error: " << d.message << " [" << d.code << "]\n";
      if (!failures.empty())
        throw dialects::ExplainError(config_path +
                                     ": coreai-opt's prepare() raises on this model, so the config "
                                     "configures nothing; fix the error above");
    }

  std::vector<features::Diagnostic> notes =
      features::overridden_diagnostics(doc, index, resolution);

  // Who decides a tied tensor follows the graph annotation order; eager mode is per tensor.
  if (!resolve::resolves_in_graph_mode(doc, index))
    resolution.shared.clear();
  const std::vector<std::vector<int>> shared_row = shared_of_rows(resolution);
  if (request.format != dialects::ExplainFormat::Text) {
    // The two big arrays are written as text (a DOM of GPT-384's 9,000 rows cost ~0.3 s).
    EntryJson entry_json(doc);
    std::string text = "{\"ops\": [";
    for (std::size_t i = 0; i < resolution.ops.size(); ++i) {
      const resolve::OpDecision& d = resolution.ops[i];
      const index::Op& op = index.ops[static_cast<std::size_t>(d.op)];
      text += i ? ",\n  {\"op_name\": " : "\n  {\"op_name\": ";
      json::append_json_string(text, op.name);
      text += ", \"op_type\": ";
      json::append_json_string(text, index.type_for(op, resolution.compressor));
      text += ", \"module\": ";
      json::append_json_string(text, module_name(index, d.module));
      text += ", \"pattern_first_op\": ";
      json::append_json_string(text, index.ops[static_cast<std::size_t>(d.primary)].name);
      text += ", \"entry\": ";
      text += entry_json(d.decider);
      if (!shared_row[i].empty()) { // tied tensors: one reader's entry decides each
        nlohmann::json tensors = nlohmann::json::array();
        for (int s : shared_row[i])
          tensors.push_back(
              shared_json(doc, index, resolution, resolution.shared[static_cast<std::size_t>(s)]));
        text += ", \"shared_tensors\": " + tensors.dump();
      }
      text += d.full_precision ? ", \"full_precision\": true}" : ", \"full_precision\": false}";
    }
    text += "],\n\"modules\": [";
    for (std::size_t i = 0; i < resolution.modules.size(); ++i) {
      const resolve::ModuleDecision& d = resolution.modules[i];
      const index::Module& m = index.modules[static_cast<std::size_t>(d.module)];
      text += i ? ",\n  {\"module\": " : "\n  {\"module\": ";
      json::append_json_string(text, m.name);
      text += ", \"module_type\": ";
      json::append_json_string(text, m.type);
      if (const std::string& canonical = index.canonical_name(static_cast<std::size_t>(d.module));
          canonical != m.name) { // called under an alias: coreai-opt's name for it
        text += ", \"canonical\": ";
        json::append_json_string(text, canonical);
      }
      text += ", \"entry\": ";
      text += entry_json(d.decider);
      text += std::string(", \"direct\": ") + (d.direct ? "true" : "false");
      text += d.full_precision ? ", \"full_precision\": true}" : ", \"full_precision\": false}";
    }
    text += "],\n";
    if (index.mode == index::Mode::Eager)
      text += "\"parameters\": " + eager_parameters_json(doc, index).dump(2) + ",\n";
    nlohmann::json unresolved = nlohmann::json::array();
    for (const resolve::Unresolved& u : resolution.unresolved)
      unresolved.push_back(
          {{"key", doc.keys[static_cast<std::size_t>(u.key)].text},
           {"line", doc.keys[static_cast<std::size_t>(u.key)].range.start.line + 1},
           {"reason", u.reason}});
    nlohmann::json diagnostics = nlohmann::json::array();
    for (const features::Diagnostic& d : notes)
      diagnostics.push_back({{"line", d.range.start.line + 1},
                             {"severity", features::to_string(d.severity)},
                             {"code", d.code},
                             {"message", d.message}});
    if (const WeightErrorReport errors =
            weight_error(doc, index, host.weights(), &resolution, host.weights_worker());
        errors.applies)
      text += "\"weight_error\": " + weight_error_json(errors, index).dump(2) + ",\n";
    text += "\"unresolved\": " + unresolved.dump(2) + ",\n\"diagnostics\": " + diagnostics.dump(2) +
            ",\n\"size\": " + explain_size(doc, index, host, &resolution).dump(2) + "}\n";
    if (request.format == dialects::ExplainFormat::Page) {
      const index::Module* root = index.modules.empty() || !index.modules.front().name.empty()
                                      ? nullptr
                                      : &index.modules.front();
      write_treemap(text,
                    {config_path, host.model(), index::to_string(runs_in(doc)),
                     root ? root->type : "", doc.root},
                    request.page_path, out, err);
      return 0;
    }
    out << text;
    return 0;
  }

  // Columns as wide as their widest cell, so the entry column lines up.
  const Paint paint{request.color};
  struct Row {
    std::string op, type, module, entry, with;
    bool full_precision;
  };
  std::vector<Row> rows;
  std::size_t w0 = 2, w1 = 6;
  for (const resolve::OpDecision& d : resolution.ops) {
    const index::Op& op = index.ops[static_cast<std::size_t>(d.op)];
    std::string module = module_name(index, d.module);
    if (const std::string& canonical = index.canonical_name(static_cast<std::size_t>(d.module));
        canonical != module)
      module += " (= " + (canonical.empty() ? std::string("(root)") : canonical) + ")";
    std::string with = d.primary == d.op
                           ? ""
                           : "(with " + index.ops[static_cast<std::size_t>(d.primary)].name + ")";
    Row row{op.name,
            "[" + index.type_for(op, resolution.compressor) + "]",
            module.empty() ? "(root)" : module,
            entry_text(doc, d.decider),
            with,
            d.full_precision};
    w0 = std::max(w0, row.op.size() + 1 + row.type.size());
    w1 = std::max(w1, row.module.size());
    rows.push_back(std::move(row));
  }
  out << paint(kBold, padded("op", 2, w0) + "  " + padded("module", 6, w1) + "  deciding entry")
      << "\n";
  for (const Row& r : rows)
    out << padded(r.op + " " + paint(kDim, r.type), r.op.size() + 1 + r.type.size(), w0) << "  "
        << padded(paint(kCyan, r.module), r.module.size(), w1) << "  " << paint(kGreen, r.entry)
        << (r.full_precision ? "  " + paint(kYellow, "fp") : "")
        << (r.with.empty() ? "" : "  " + paint(kDim, r.with)) << "\n";
  std::size_t full_precision = static_cast<std::size_t>(
      std::count_if(resolution.ops.begin(), resolution.ops.end(),
                    [](const resolve::OpDecision& d) { return d.full_precision; }));
  out << resolution.ops.size() << " ops configured by the " << coreai::find(doc.root)->class_name
      << ", " << full_precision << " left in full precision\n";
  for (const resolve::SharedTensor& shared : resolution.shared) {
    const index::Parameter& p = index.parameters[static_cast<std::size_t>(shared.parameter)];
    const resolve::OpDecision& first = resolution.ops[static_cast<std::size_t>(shared.decided_by)];
    std::string names = p.name;
    for (const std::string& alias : p.aliases)
      names += " = " + alias;
    out << "tied: " << names << " is one tensor read by " << shared.readers.size()
        << " ops; its spec comes from " << index.ops[static_cast<std::size_t>(first.op)].name
        << "'s entry " << entry_text(doc, first.decider)
        << " (annotated first), for every reader\n";
  }
  if (index.mode == index::Mode::Eager)
    print_eager_parameters(doc, index, paint, out);
  for (const features::Diagnostic& d : notes)
    out << config_path << ":" << d.range.start.line + 1 << ": "
        << paint(d.severity == features::Severity::Warning ? kYellow : kBlue,
                 features::to_string(d.severity))
        << ": " << d.message << " [" << d.code << "]\n";
  out << explain_size_line(explain_size(doc, index, host, &resolution)) << "\n";
  if (const WeightErrorReport errors =
          weight_error(doc, index, host.weights(), &resolution, host.weights_worker());
      errors.applies)
    print_weight_error(errors, index, paint, out);
  return 0;
}

} // namespace opscope::coreai_explain
