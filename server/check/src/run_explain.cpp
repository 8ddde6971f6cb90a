#include "opscope/check/run_explain.h"

#include "check_host.h"

#include "opscope/cli/dispatch.h"
#include "opscope/cli/model_options.h"
#include "opscope/config/positions.h"
#include "opscope/dialects/dialect.h"
#include "opscope/model/model_source.h"
#include "opscope/model/weights_worker.h"
#include "opscope/support/regular_file.h"
#include "opscope/workspace/dialects.h"
#include "opscope/workspace/workspace.h"

#include <filesystem>
#include <iostream>
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

std::string read_config_text(const std::string& path) {
  constexpr std::uint64_t kMaxConfigBytes = std::uint64_t{256} << 20;
  try {
    return support::read_regular_file(path, kMaxConfigBytes);
  } catch (const support::FileReadError& e) {
    throw std::runtime_error(std::string(e.what()) + "; check the path");
  }
}

// A text its library would not load is explained by no model.
void refuse_syntax_problems(const std::string& path, const dialects::DialectDocument& document) {
  const std::vector<config::SyntaxProblem> problems = document.syntax_problems();
  if (problems.empty())
    return;
  const config::SyntaxProblem& p = problems.front();
  throw std::runtime_error(path + ":" + std::to_string(p.range.start.line + 1) + ":" +
                           std::to_string(p.range.start.byte_col + 1) + ": " + p.message +
                           " (its library cannot load this config either; `opscope check " + path +
                           "` lists every problem)");
}

// What explain's document asks of the command line's host: the model as loaded, its index in
// another mode and the weights worker, all through engine/model.
class ModelHost final : public dialects::ExplainHost {
public:
  ModelHost(std::string model, std::string weights, model::Settings settings)
      : model_(std::move(model)), weights_(std::move(weights)), settings_(std::move(settings)) {}
  std::string model() const override { return model_; }
  std::string weights() const override { return weights_; }
  index::Index index_in(index::Mode mode) const override {
    model::Settings settings = settings_;
    settings.mode = mode;
    settings.mode_given = true;
    return model::load_index(model_, settings);
  }
  const dialects::WeightsWorker& weights_worker() const override { return model::weights_worker(); }

private:
  std::string model_, weights_;
  model::Settings settings_;
};

// The document's refusals, as the command line's errors (a usage error exits 2).
template <typename Body> auto refused_as_usage(Body&& body) {
  try {
    return body();
  } catch (const dialects::ExplainError& e) {
    if (e.usage)
      throw UsageError(e.what());
    throw std::runtime_error(e.what());
  }
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
    std::string text = read_config_text(config_path);
    // The file as its dialect reads it, once: for what it refuses before any model is loaded,
    // then analysed by the workspace.
    const std::unique_ptr<dialects::DialectSession> session =
        workspace::dialect_for(config_path, text).open();
    dialects::ReadHost no_host;
    const std::shared_ptr<const dialects::DialectDocument> read =
        session->read({config_path, text, 0, true}, no_host);
    refuse_syntax_problems(config_path, *read);
    const model::Settings asked = cli::model_settings(parsed);
    refused_as_usage([&] {
      read->explain_refusal(config_path,
                            asked.mode_given ? std::optional(asked.mode) : std::nullopt);
    });
    if (parsed.has("--html") && parsed.has("--json"))
      throw UsageError("--html and --json: give one (the page is drawn from the same data)");
    if (parsed.has("--html") && !read->draws_a_page())
      throw UsageError(config_path + ": --html draws no page of this library's config; " +
                       "`opscope explain " + config_path +
                       " --json` lists what it does module by module");

    // The model as `opscope check` finds it: --model, else the config's opscope.yaml, with
    // the same consent rule for a Python model; in the mode the library runs the config in.
    project::ModelSettings overrides = command_line_overrides(parsed);
    if (const std::optional<index::Mode> mode = read->runs_in())
      overrides.mode = index::to_string(*mode);
    CheckHost host(parsed);
    workspace::Workspace workspace(host, {overrides, fs::current_path().string(), true, true});
    workspace::Document document;
    document.path = fs::absolute(config_path).string();
    document.uri = document.path;
    document.text = std::move(text);
    document.read = read;
    workspace::Analysis analysis = workspace.analyse(document);
    for (const std::string& problem : analysis.resolution.project_problems)
      std::cerr << problem << "\n";
    if (!analysis.model || analysis.model->state != workspace::ModelState::Ready) {
      std::optional<dialects::ModelProblem> problem = workspace.model_problem(analysis);
      throw std::runtime_error(config_path + ": " +
                               (problem ? problem->message : std::string("no model to explain")));
    }
    // A model torch.export could not trace has module names only.
    if (analysis.document->needs_graph() && !analysis.model->index->provenance.untraced.empty())
      throw std::runtime_error(config_path + ": " + workspace.model_problem(analysis)->message);
    const std::string& model = model_source(analysis.model->spec);
    // Real weights: where opscope.yaml's `weights:` points, an hf: model's checkpoint, else
    // the model's own archive (this run's resolution: the loaded model's spec may be older).
    const std::string& weights =
        analysis.resolution.model && !analysis.resolution.model->weights.empty()
            ? analysis.resolution.model->weights
            : model;
    const ModelHost model_host(model, weights, load_settings(analysis.model->spec, parsed));
    const dialects::Context context = workspace.context(analysis);
    return refused_as_usage([&] {
      return analysis.document->explain({config_path, context,
                                         parsed.has("--html")   ? dialects::ExplainFormat::Page
                                         : parsed.has("--json") ? dialects::ExplainFormat::Json
                                                                : dialects::ExplainFormat::Text,
                                         parsed.has("--html") ? parsed.value("--html") : "",
                                         cli::use_color(parsed), std::cout, std::cerr, model_host});
    });
  });
}

} // namespace opscope::check
