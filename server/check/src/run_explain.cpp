#include "opscope/check/run_explain.h"

#include "check_host.h"
#include "explain_html.h"
#include "explain_parameters.h"
#include "explain_size.h"
#include "explain_weight_error.h"
#include "paint.h"

#include "opscope/cli/dispatch.h"
#include "opscope/cli/model_options.h"
#include "opscope/config/document.h"
#include "opscope/config/values.h"
#include "opscope/coreai/compressors.h"
#include "opscope/dialects/coreai/dialect.h"
#include "opscope/features/overridden.h"
#include "opscope/features/prepare_failures.h"
#include "opscope/features/schema_diagnostics.h"
#include "opscope/json/json_string.h"
#include "opscope/resolve/eager_weights.h"
#include "opscope/resolve/pruner.h"
#include "opscope/resolve/resolve.h"
#include "opscope/support/regular_file.h"
#include "opscope/workspace/dialects.h"
#include "opscope/workspace/workspace.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>

namespace fs = std::filesystem;

namespace opscope::check {
namespace {

using cli::CommandSpec;
using cli::kExitOk;
using cli::ParsedArgs;
using cli::UsageError;

CommandSpec explain_spec() {
  CommandSpec spec{
      "explain",
      "CONFIG [--model MODEL] [options]",
      "For every op the compressor configures (the Quantizer's pattern members such as "
      "the bn and relu after a conv included; the palettizer's and the pruner's calls in "
      "eager mode), the config entry that decides it, "
      "as coreai-opt 0.4.0's prepare() resolves it (module name > module type > "
      "global, later entries win, children inherit, op_name_config > "
      "op_type_config). A PEFT config: each module it wraps, with its entry, rank and alpha, "
      "and print_trainable_parameters()'s line. An llm-compressor recipe, oneshot script or "
      "compressed-tensors checkpoint: the scheme each module gets (or the ignore entry that "
      "leaves it out) and the checkpoint's projected size, as llm-compressor saves it.",
      "Text output: one row per op: op [type], module, deciding entry (path and\n"
      "line), `fp` when the entry leaves it in full precision (a null value).\n"
      "JSON: {\"ops\": [{op_name, op_type, module, pattern_first_op (the op whose\n"
      "module and name decide a pattern member such as the relu after a conv),\n"
      "entry: {path, line} | null, full_precision}], \"modules\": [{module, module_type, entry, "
      "direct,\n"
      "full_precision}], \"unresolved\": [...]}; lines are 1-based; entry null is\n"
      "coreai-opt's default global_config (none written). Graph mode, quantization_config.\n"
      "Eager mode: the ops are the compressor's own registered calls (each with the\n"
      "entry its op_state_spec comes from; fp when none of its weights is compressed).\n"
      "Eager mode (the pruner, the palettizer, execution_mode: eager) adds\n"
      "\"parameters\": [{parameter, names, module, entry, spec_table, spec_key, spec,\n"
      "read_by}] with each reached parameter's spec (the pruner's with defaults filled in;\n"
      "null: not compressed); a tensor read from several modules (tied weights) has\n"
      "read_by: [{op, module, entry}] and one spec, its highest-priority reader's.\n"
      "Graph mode: an op reading a tied tensor has shared_tensors: [{parameter, names,\n"
      "decided_by: {op, entry}}]; a module called under an alias has canonical.\n"
      "Both: \"size\": {bits_per_weight, bits, bytes: {before, after}, weights, modules}, the\n"
      "projected size as bits_per_weight() counts it (graph mode: the weight fake-quants\n"
      "prepare() inserts), or {unavailable: why}; the text ends with it.\n"
      "The Quantizer on a .pt2 archive saved with its weights: \"weight_error\":\n"
      "{parameters: [{parameter, dtype, qscheme, qformulation, block_size, folded_with,\n"
      "sqnr_db, relative_error}], worst: [...]}, each quantized weight fake-quantized as\n"
      "prepare() does (opscope-weights), or {unavailable: why} (a weightless archive);\n"
      "the text adds its table and the three worst layers.\n"
      "--html FILE: the same data as a page (no network): the model as a treemap, one\n"
      "rectangle per module owning weights, area its bytes, colour its bits per weight (or\n"
      "its weights' SQNR when measured), grouped by module; click one for its deciding entry.\n"
      "coreai-opt configs whose size is projected (not the pruner, not other libraries').",
      cli::model_options(false),
      {"CONFIG"}};
  spec.options.insert(spec.options.begin(),
                      {"--model", "-m", "M",
                       "the model: a .pt2 archive, an index file or a Python target with "
                       "--input (default: the model the config's opscope.yaml names, as for "
                       "`opscope check`)"});
  spec.options.push_back({"--trust", "", "",
                          "run the Python model the project names, for this run only "
                          "(`opscope trust` allows it for good)"});
  spec.options.push_back({"--json", "", "", "print the resolution as JSON"});
  spec.options.push_back(
      {"--html", "", "FILE", "write the model's treemap page to FILE (- for stdout)"});
  spec.options.push_back({"--color", "", "", "colour even when stdout is not a terminal"});
  spec.options.push_back({"--no-color", "", "", "never colour (also: NO_COLOR=1)"});
  return spec;
}

// This command's table, treemap and weight error are coreai-opt's; another library's config is
// explained by its dialect (DialectDocument::explain).
bool another_library(const std::string& path, const std::string& text) {
  return &workspace::dialect_for(path, text) != &dialects::coreai::dialect();
}

config::ConfigDocument read_document(const std::string& path, std::string& text) {
  constexpr std::uint64_t kMaxConfigBytes = std::uint64_t{256} << 20;
  try {
    text = support::read_regular_file(path, kMaxConfigBytes);
  } catch (const support::FileReadError& e) {
    throw std::runtime_error(std::string(e.what()) + "; check the path");
  }
  config::ConfigDocument doc = config::read_config(text, config::guess_format(path, text));
  if (!doc.problems.empty()) {
    const config::SyntaxProblem& p = doc.problems.front();
    throw std::runtime_error(path + ":" + std::to_string(p.range.start.line + 1) + ":" +
                             std::to_string(p.range.start.byte_col + 1) + ": " + p.message +
                             " (coreai-opt cannot load this config either; `opscope check " + path +
                             "` lists every problem)");
  }
  if (another_library(path, text))
    return doc; // its dialect explains it (DialectDocument::explain)
  // The palettizer and the eager Quantizer: module decisions and the projected size (params).
  if (!coreai::find(doc.root))
    throw std::runtime_error(path +
                             ": not a coreai-opt config: explain needs one of the root keys "
                             "coreai-opt loads (" +
                             coreai::root_key_names() + ")");
  if (doc.execution_mode && !coreai::execution_mode_value(*doc.execution_mode))
    throw std::runtime_error(path + ":" + std::to_string(doc.execution_mode_range.start.line + 1) +
                             ": execution_mode '" + *doc.execution_mode +
                             "': coreai-opt runs graph or eager; fix the value (`opscope check " +
                             path + "` says more)");
  return doc;
}

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
                   const std::string& out) {
  const std::string page =
      treemap_page(treemap_data(nlohmann::json::parse(explain_json), source, kMaxRectangles));
  if (out == "-") {
    std::cout << page;
    return;
  }
  std::ofstream file(out, std::ios::binary | std::ios::trunc);
  file << page;
  file.close();
  if (!file)
    throw std::runtime_error("cannot write " + out + ": " + std::strerror(errno) +
                             "; give a writable path to --html");
  std::cerr << "opscope: wrote " << out << " (" << page.size() << " bytes)\n";
}

} // namespace

int run_explain(const std::vector<std::string>& args) {
  return cli::guarded("explain", [&] {
    CommandSpec spec = explain_spec();
    ParsedArgs parsed = cli::parse_args(spec, args);
    if (parsed.help) {
      std::cout << cli::help_text(spec);
      return kExitOk;
    }
    const std::string& config_path = parsed.positionals[0];
    std::string text;
    // Read once: the refusals below need it before a model is looked for, and the workspace
    // analyses this same parse.
    const auto parsed_config =
        std::make_shared<const config::ConfigDocument>(read_document(config_path, text));
    const config::ConfigDocument& doc = *parsed_config;
    if (parsed.has("--html") && parsed.has("--json"))
      throw UsageError("--html and --json: give one (the page is drawn from the same data)");
    if (parsed.has("--html") && another_library(config_path, text))
      throw UsageError(config_path + ": --html draws coreai-opt configs only; `opscope explain " +
                       config_path +
                       " --json` lists what this library's config does module by module");
    // What coreai-opt runs is decided by the config alone: the palettizer and the pruner
    // eager, the Quantizer as its execution_mode says (graph when it says nothing).
    const bool pruner = doc.root == config::Compressor::MagnitudePruner;
    const index::Mode mode = coreai::config_mode(doc.root, doc.execution_mode);
    if (const model::Settings asked = cli::model_settings(parsed);
        asked.mode_given && asked.mode != mode)
      throw UsageError(config_path + " runs in " + index::to_string(mode) +
                       " mode in coreai-opt (" +
                       (doc.execution_mode ? "its execution_mode"
                        : mode == index::Mode::Eager
                            ? std::string(coreai::find(doc.root)->name) + " runs eager only"
                            : std::string("it has no execution_mode: eager")) +
                       "), and explain follows the config: drop --mode");

    // The model as `opscope check` finds it: --model, else the config's opscope.yaml, with
    // the same consent rule for a Python model.
    project::ModelSettings overrides = command_line_overrides(parsed);
    overrides.mode = index::to_string(mode);
    CheckHost host(parsed);
    workspace::Workspace workspace(host, {overrides, fs::current_path().string(), true, true});
    workspace::Document document;
    document.path = fs::absolute(config_path).string();
    document.uri = document.path;
    document.text = std::move(text);
    document.config = parsed_config;
    workspace::Analysis analysis = workspace.analyse(document);
    for (const std::string& problem : analysis.resolution.project_problems)
      std::cerr << problem << "\n";
    if (!analysis.model || analysis.model->state != workspace::ModelState::Ready) {
      std::optional<features::ModelProblem> problem = workspace.model_problem(analysis);
      throw std::runtime_error(config_path + ": " +
                               (problem ? problem->message : std::string("no model to explain")));
    }
    if (!dialects::coreai::document_of(analysis.document.get())) // its dialect explains it
      return analysis.document->explain(config_path, *analysis.model->index, parsed.has("--json"),
                                        std::cout, std::cerr);
    if (!analysis.model->index->provenance.untraced.empty()) // module names only
      throw std::runtime_error(config_path + ": " + workspace.model_problem(analysis)->message);
    // A config coreai-opt refuses (from_yaml / from_dict raise) does nothing: say why, as
    // `opscope check` would, instead of explaining what it cannot do.
    const coreai::CompressorInfo* compressor = coreai::find(doc.root);
    std::size_t refusals = 0;
    for (const features::Diagnostic& d : features::schema_diagnostics(
             doc, *analysis.schema, compressor ? compressor->root_key : std::string_view()))
      if (d.severity == features::Severity::Error) {
        std::cerr << config_path << ":" << d.range.start.line + 1 << ":"
                  << d.range.start.byte_col + 1 << ": error: " << d.message << " [" << d.code
                  << "]\n";
        ++refusals;
      }
    if (refusals)
      throw std::runtime_error(config_path + ": coreai-opt refuses this config (its from_yaml " +
                               "raises), so it configures nothing; fix the " +
                               (refusals == 1 ? std::string("error") : "errors") + " above");
    const index::Index& index = *analysis.model->index;
    const std::string& model = model_source(analysis.model->spec);
    // Real weights: where opscope.yaml's `weights:` points, an hf: model's checkpoint, else
    // the model's own archive (this run's resolution: the loaded model's spec may be older).
    const std::string& weights =
        analysis.resolution.model && !analysis.resolution.model->weights.empty()
            ? analysis.resolution.model->weights
            : model;
    const model::Settings settings = load_settings(analysis.model->spec, parsed);
    if (pruner && index.mode != index::Mode::Eager)
      throw UsageError(std::string(coreai::find(doc.root)->class_name) +
                       " runs eager only: give an eager-mode index or a .pt2 "
                       "archive, not a graph-mode index");
    // Eager mode (the pruner, the palettizer, execution_mode: eager): the compressor's own
    // registered calls, not the graph Quantizer's annotation.
    resolve::Resolution resolution = resolve::resolve_config(doc, index);
    if (doc.objects.size() > 1) // each is resolved on its own; the table shows the first
      std::cerr << config_path << ": builds " << doc.objects.size()
                << " config objects; this is what the first one does (check reports on all)\n";

    for (const resolve::Unresolved& u : resolution.unresolved) {
      const config::PatternKey& key = doc.keys[static_cast<std::size_t>(u.key)];
      std::cerr << config_path << ":" << key.range.start.line + 1 << ": '" << key.text
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
          std::cerr << config_path << ":" << d.range.start.line + 1 << ":"
                    << d.range.start.byte_col + 1 << ": error: " << d.message << " [" << d.code
                    << "]\n";
        if (!failures.empty())
          throw std::runtime_error(config_path +
                                   ": coreai-opt's prepare() raises on this model, so the config "
                                   "configures nothing; fix the error above");
      }

    std::vector<features::Diagnostic> notes =
        features::overridden_diagnostics(doc, index, resolution);

    // Who decides a tied tensor follows the graph annotation order; eager mode is per tensor.
    if (!resolve::resolves_in_graph_mode(doc, index))
      resolution.shared.clear();
    const std::vector<std::vector<int>> shared_row = shared_of_rows(resolution);
    if (parsed.has("--json") || parsed.has("--html")) {
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
            tensors.push_back(shared_json(doc, index, resolution,
                                          resolution.shared[static_cast<std::size_t>(s)]));
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
      if (const WeightErrorReport errors = weight_error(doc, index, weights, &resolution);
          errors.applies)
        text += "\"weight_error\": " + weight_error_json(errors, index).dump(2) + ",\n";
      text +=
          "\"unresolved\": " + unresolved.dump(2) + ",\n\"diagnostics\": " + diagnostics.dump(2) +
          ",\n\"size\": " + explain_size(doc, index, model, settings, &resolution).dump(2) + "}\n";
      if (parsed.has("--html")) {
        const index::Module* root = index.modules.empty() || !index.modules.front().name.empty()
                                        ? nullptr
                                        : &index.modules.front();
        write_treemap(
            text, {config_path, model, index::to_string(mode), root ? root->type : "", doc.root},
            parsed.value("--html"));
        return kExitOk;
      }
      std::cout << text;
      return kExitOk;
    }

    // Columns as wide as their widest cell, so the entry column lines up.
    const Paint paint{cli::use_color(parsed)};
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
    std::cout << paint(kBold,
                       padded("op", 2, w0) + "  " + padded("module", 6, w1) + "  deciding entry")
              << "\n";
    for (const Row& r : rows)
      std::cout << padded(r.op + " " + paint(kDim, r.type), r.op.size() + 1 + r.type.size(), w0)
                << "  " << padded(paint(kCyan, r.module), r.module.size(), w1) << "  "
                << paint(kGreen, r.entry) << (r.full_precision ? "  " + paint(kYellow, "fp") : "")
                << (r.with.empty() ? "" : "  " + paint(kDim, r.with)) << "\n";
    std::size_t full_precision = static_cast<std::size_t>(
        std::count_if(resolution.ops.begin(), resolution.ops.end(),
                      [](const resolve::OpDecision& d) { return d.full_precision; }));
    std::cout << resolution.ops.size() << " ops configured by the "
              << coreai::find(doc.root)->class_name << ", " << full_precision
              << " left in full precision\n";
    for (const resolve::SharedTensor& shared : resolution.shared) {
      const index::Parameter& p = index.parameters[static_cast<std::size_t>(shared.parameter)];
      const resolve::OpDecision& first =
          resolution.ops[static_cast<std::size_t>(shared.decided_by)];
      std::string names = p.name;
      for (const std::string& alias : p.aliases)
        names += " = " + alias;
      std::cout << "tied: " << names << " is one tensor read by " << shared.readers.size()
                << " ops; its spec comes from "
                << index.ops[static_cast<std::size_t>(first.op)].name << "'s entry "
                << entry_text(doc, first.decider) << " (annotated first), for every reader\n";
    }
    if (index.mode == index::Mode::Eager)
      print_eager_parameters(doc, index, paint);
    for (const features::Diagnostic& d : notes)
      std::cout << config_path << ":" << d.range.start.line + 1 << ": "
                << paint(d.severity == features::Severity::Warning ? kYellow : kBlue,
                         features::to_string(d.severity))
                << ": " << d.message << " [" << d.code << "]\n";
    std::cout << explain_size_line(explain_size(doc, index, model, settings, &resolution)) << "\n";
    if (const WeightErrorReport errors = weight_error(doc, index, weights, &resolution);
        errors.applies)
      print_weight_error(errors, index, paint);
    return kExitOk;
  });
}

} // namespace opscope::check
