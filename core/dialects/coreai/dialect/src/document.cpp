#include "document_impl.h"
#include "proposal_rewriting.h"
#include "weight_error_measurement.h"

#include "opscope/config/tree.h"
#include "opscope/coreai/compressors.h"
#include "opscope/dialects/coreai/explain.h"
#include "opscope/features/completion.h"
#include "opscope/features/definition.h"
#include "opscope/features/diagnostics.h"
#include "opscope/features/hover.h"
#include "opscope/features/projected_size.h"
#include "opscope/features/schema_completion.h"
#include "opscope/features/schema_diagnostics.h"

#include <algorithm>

namespace opscope::dialects::coreai {
namespace {

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

// The project's coreai-opt schema, else the built-in copy (which lives forever).
const schema::Schema& schema_of(const Context& context) {
  return schema::chosen_or_builtin(context.schema);
}

std::string_view root_key_of(index::Compressor compressor) {
  const ::opscope::coreai::CompressorInfo* info = ::opscope::coreai::find(compressor);
  return info ? info->root_key : std::string_view();
}

class ConfigDocument final : public Document {
public:
  explicit ConfigDocument(DocumentParts parts) : parts_(std::move(parts)) {}

  const config::ConfigDocument& config() const override { return *parts_.config; }
  std::vector<config::SyntaxProblem> syntax_problems() const override {
    return parts_.config->problems;
  }
  std::shared_ptr<const config::ConfigDocument> shared_config() const override {
    return parts_.config;
  }
  std::shared_ptr<const resolve::SharedResolution>
  decisions(const std::shared_ptr<const index::Index>& index) const override {
    return parts_.decisions->for_index(index);
  }

  bool empty() const override { return !is_config(); }
  std::optional<std::string> model() const override { return std::nullopt; }
  ModelHints model_hints() const override {
    std::optional<index::Mode> mode;
    if (config().execution_mode) // as coreai-opt reads it (`pt2e` is graph)
      mode = ::opscope::coreai::execution_mode_value(*config().execution_mode)
                 .value_or(index::Mode::Graph);
    return {config().root, mode, std::nullopt};
  }
  bool is_config() const override {
    const config::ConfigDocument& c = config();
    if (c.format == config::Format::Python)
      // Any other Python file is not ours, unless from_dict's document has a misremembered root.
      return c.root != config::Compressor::None || !c.unknown_fields.empty();
    return c.root != config::Compressor::None || parts_.named_as_config;
  }
  std::string why_not_a_config() const override {
    if (holds_a_config(config()))
      return "";
    return "not a coreai-opt config: no root key coreai-opt loads (" +
           ::opscope::coreai::root_key_names() +
           ") and no module or op tables; nothing checked (--only-configs skips such files)";
  }
  bool needs_graph() const override { return true; }

  std::vector<Diagnostic> diagnostics(const Context& context) const override {
    if (!is_config()) {
      if (parts_.held)
        parts_.held->replace({}); // no longer a config: nothing to keep compiled
      return {};
    }
    // Every pattern of the config compiled once, up front, and kept for its next check (the
    // one held for the previous check lets go only of the patterns no longer written).
    index::QueryEngine::Hold hold;
    if (context.queries)
      hold = context.queries->hold(queried_keys(config()));
    Model model(*this, context);
    std::vector<Diagnostic> out = features::diagnose(config(), model.get());
    // The projected size of this revision, for the hover and code lens that follow (computed
    // here, off the request thread, with the resolution the diagnostics just used).
    if (model.get() && parts_.decisions->kept())
      model.decisions->size(config(), *context.index, context.queries.get());
    std::vector<Diagnostic> more =
        features::schema_diagnostics(config(), schema_of(context), root_key_of(context.compressor));
    // A misremembered root key is already named, with the root it means, as unknown-field.
    std::erase_if(more, [&](const Diagnostic& d) {
      return d.code == "schema-root" && std::any_of(out.begin(), out.end(), [&](const auto& o) {
               return o.code == "unknown-field" && o.range == d.range;
             });
    });
    out.insert(out.end(), std::make_move_iterator(more.begin()),
               std::make_move_iterator(more.end()));
    if (parts_.held)
      parts_.held->replace(std::move(hold));
    return out;
  }

  config::Range problem_range() const override {
    return config().root != config::Compressor::None ? config().root_range : config::Range{};
  }

  std::optional<Hover> hover_at(const Context& context, config::Position cursor) const override {
    Model model(*this, context);
    std::optional<Hover> found = features::hover(config(), cursor, model.get());
    if (!found)
      found = features::schema_hover(config(), cursor, schema_of(context));
    return found;
  }

  CompletionList completion(const Context& context, config::Position cursor,
                            const CompletionOptions& options) const override {
    Model model(*this, context);
    CompletionList found = features::complete(config(), cursor, model.get(), options);
    if (found.items.empty()) // not a pattern key or a known field: coreai-opt's models say
      found = features::schema_complete(config(), cursor, schema_of(context),
                                        root_key_of(context.compressor));
    return found;
  }

  std::vector<CodeLens> code_lenses(const Context& context) const override {
    Model model(*this, context);
    return model.get() ? features::code_lenses(config(), model.get()) : std::vector<CodeLens>{};
  }

  std::vector<SourceLocation> definition(const Context& context,
                                         config::Position cursor) const override {
    Model model(*this, context);
    if (!model.get())
      return {};
    return features::definition(config(), cursor, *model.get());
  }

  std::unique_ptr<Measurement> measurement(const Context& context,
                                           const std::string& weights) const override {
    // The compressors whose weights opscope-weights measures (resolve::quantized_weights).
    const config::Compressor root = config().root;
    if (!context.index ||
        (root != config::Compressor::Quantizer && root != config::Compressor::MagnitudePruner &&
         root != config::Compressor::KMeansPalettizer))
      return nullptr;
    return weight_error_measurement(
        {weights, shared_config(), context.index, context.queries, decisions(context.index)});
  }

  std::optional<RewritesOffered> rewrites(const Context& context,
                                          const std::string& weights) const override {
    if (config().root != config::Compressor::Quantizer || weights.empty() || !context.index)
      return std::nullopt;
    return proposals_offered(config().root_range.start.line);
  }

  std::unique_ptr<Rewriting> rewriting(const Context& context, const std::string& weights,
                                       const std::string& path,
                                       const std::string& text) const override {
    if (!rewrites(context, weights))
      return nullptr;
    // Only on weights that were measured (a weightless archive or a failed worker: nothing).
    const Measured* measured = context.measured.get();
    const auto* report =
        measured && measured->current
            ? static_cast<const resolve::WeightErrorReport*>(measured->result.get())
            : nullptr;
    if (!report || !report->applies || !report->unavailable.empty())
      return nullptr;
    return proposal_rewriting({weights, path, text, config().format, context.index});
  }

  void explain_refusal(const std::string& config_path,
                       std::optional<index::Mode> asked_mode) const override {
    coreai_explain::refuse(config(), config_path, asked_mode);
  }
  std::optional<index::Mode> runs_in() const override { return coreai_explain::runs_in(config()); }
  bool draws_a_page() const override { return true; }
  int explain(const ExplainRequest& request) const override {
    return coreai_explain::explain(config(), request);
  }

private:
  // The features' view of the model for one answer: null without an index.
  struct Model {
    Model(const ConfigDocument& document, const Context& context) {
      if (!context.index)
        return;
      decisions = document.decisions(context.index);
      model.index = context.index.get();
      model.compressor = context.compressor;
      model.queries = context.queries.get();
      model.resolution = decisions.get();
      if (const Measured* measured = context.measured.get()) {
        weight_error = {
            std::static_pointer_cast<const resolve::WeightErrorReport>(measured->result),
            measured->current, measured->measuring};
        model.weight_error = &weight_error;
      }
    }
    Model(const Model&) = delete; // `model` points into it
    Model& operator=(const Model&) = delete;
    const features::Model* get() const { return decisions ? &model : nullptr; }
    std::shared_ptr<const resolve::SharedResolution> decisions; // kept alive for `model`
    features::WeightErrorState weight_error;                    // what `model` points to
    features::Model model;
  };

  DocumentParts parts_;
};

} // namespace

std::shared_ptr<const resolve::SharedResolution>
Decisions::for_index(const std::shared_ptr<const index::Index>& index) {
  std::lock_guard<std::mutex> lock(mutex_);
  // A live weak pointer to the same address is the same index (a freed one cannot lock).
  if (!decisions_ || resolved_index_.lock() != index) {
    decisions_ = std::make_shared<const resolve::SharedResolution>();
    resolved_index_ = index;
  }
  return decisions_;
}

std::shared_ptr<const Document> make_document(DocumentParts parts) {
  return std::make_shared<const ConfigDocument>(std::move(parts));
}

const Document* document_of(const DialectDocument* document) {
  return dynamic_cast<const Document*>(document);
}

bool holds_a_config(const config::ConfigDocument& config) {
  if (config.root != config::Compressor::None || !config.keys.empty() ||
      config.global_config_range.has_value())
    return true;
  // A spec section alone is a config whose root line went missing (coreai-opt refuses it).
  const config::detail::Node* top = config.tree ? config.tree->root.get() : nullptr;
  const auto& compressors = ::opscope::coreai::compressors();
  return top &&
         std::any_of(top->entries.begin(), top->entries.end(), [&](const config::detail::Entry& e) {
           return std::any_of(compressors.begin(), compressors.end(),
                              [&](const auto& c) { return e.key == c.spec_key; });
         });
}

} // namespace opscope::dialects::coreai
