#include "opscope/dialects/peft/dialect.h"

#include "explain.h"
#include "opscope/dialects/peft/peft.h"
#include "opscope/dialects/per_model.h"

namespace opscope::dialects::peft {
namespace {

// Every name completion offers, per model: kept by the dialect across revisions (each
// keystroke is a new document; a 70B-shaped model has over a thousand names).
using Candidates = PerModel<std::vector<CompletionItem>>;

// A file's PEFT configs (a script may hold several), read once per revision.
class PeftDocument final : public DialectDocument {
public:
  PeftDocument(std::vector<PeftConfig> configs, std::vector<config::SyntaxProblem> problems,
               std::string text, std::shared_ptr<const Candidates> candidates)
      : configs_(std::move(configs)), problems_(std::move(problems)), text_(std::move(text)),
        candidates_(std::move(candidates)) {}

  bool empty() const override { return configs_.empty(); }
  std::vector<config::SyntaxProblem> syntax_problems() const override { return problems_; }

  std::optional<std::string> model() const override {
    for (const PeftConfig& config : configs_)
      if (config.base_model)
        return config.base_model->text;
    return std::nullopt;
  }

  // The keys are checked before any model has loaded (and when none can).
  std::vector<Diagnostic> diagnostics(const Context& context) const override {
    std::vector<Diagnostic> out = DialectDocument::diagnostics(context);
    for (const PeftConfig& config : configs_) {
      std::vector<Diagnostic> found = diagnose_fields(config);
      out.insert(out.end(), std::make_move_iterator(found.begin()),
                 std::make_move_iterator(found.end()));
    }
    return out;
  }

  std::optional<Hover> hover_at(const Context& context, config::Position cursor) const override {
    if (const PeftConfig* config = config_at(cursor))
      if (std::optional<Hover> on_key = field_hover(*config, cursor))
        return on_key;
    return DialectDocument::hover_at(context, cursor);
  }

  // A keyword being typed in a config call: the class's fields, model or not.
  CompletionList completion(const Context& context, config::Position cursor,
                            const CompletionOptions& options) const override {
    if (const PeftConfig* config = config_at(cursor)) {
      CompletionList keywords{true, complete_fields(*config, text_, cursor)};
      if (!keywords.items.empty()) {
        if (keywords.items.size() > options.max_items)
          keywords.items.resize(options.max_items);
        return keywords;
      }
    }
    return DialectDocument::completion(context, cursor, options);
  }

  std::vector<Diagnostic> diagnose(const index::Index& model) const override {
    std::vector<Diagnostic> out;
    const auto resolved = resolutions(model);
    for (std::size_t i = 0; i < configs_.size(); ++i) {
      std::vector<Diagnostic> found = peft::diagnose(configs_[i], (*resolved)[i], model);
      out.insert(out.end(), std::make_move_iterator(found.begin()),
                 std::make_move_iterator(found.end()));
    }
    return out;
  }

  std::optional<Hover> hover(const index::Index& model, config::Position cursor) const override {
    const PeftConfig* config = config_at(cursor);
    if (!config)
      return std::nullopt;
    return peft::hover(*config,
                       (*resolutions(model))[static_cast<std::size_t>(config - configs_.data())],
                       model, cursor);
  }

  std::vector<CompletionItem> complete(const index::Index& model, config::Position cursor,
                                       std::size_t limit) const override {
    const PeftConfig* config = config_at(cursor);
    if (!config)
      return {};
    auto candidates = candidates_->get(model, [&] { return completion_candidates(model); });
    return peft::complete(*config, *candidates, cursor, limit);
  }

  int explain(const ExplainRequest& request) const override {
    return peft::explain(request.config_path, configs_, *request.context.index,
                         request.format == ExplainFormat::Json, request.out, request.err);
  }

private:
  // The config the cursor is in: the last one starting at or before it, else the first.
  const PeftConfig* config_at(config::Position cursor) const {
    const PeftConfig* found = nullptr;
    for (const PeftConfig& config : configs_)
      if (config.anchor.start <= cursor)
        found = &config;
    return found ? found : (configs_.empty() ? nullptr : &configs_.front());
  }

  // Each config's resolution on `model`, once per revision and model: the background check
  // and the hovers that follow share it (100 entries over a 70B-shaped model's modules are
  // ~5 M instructions, and a hover is asked on every cursor move).
  std::shared_ptr<const std::vector<Resolution>> resolutions(const index::Index& model) const {
    return resolutions_.get(model, [&] {
      std::vector<Resolution> all;
      all.reserve(configs_.size());
      for (const PeftConfig& config : configs_)
        all.push_back(resolve(config, model));
      return all;
    });
  }

  std::vector<PeftConfig> configs_;
  std::vector<config::SyntaxProblem> problems_;
  std::string text_;                             // for the keyword being typed
  std::shared_ptr<const Candidates> candidates_; // the dialect's
  PerModel<std::vector<Resolution>> resolutions_{1};
};

class PeftDialect final : public Dialect {
public:
  std::string_view name() const override { return "peft"; }
  bool recognises(const std::string& path, const std::string& text) const override {
    return looks_like_peft(path, text);
  }
  std::shared_ptr<const DialectDocument> read(const std::string& path,
                                              const std::string& text) const override {
    std::vector<config::SyntaxProblem> problems;
    std::vector<PeftConfig> configs = read_peft_configs(path, text, &problems);
    return std::make_shared<const PeftDocument>(std::move(configs), std::move(problems), text,
                                                candidates_);
  }

private:
  std::shared_ptr<const Candidates> candidates_ = std::make_shared<const Candidates>();
};

} // namespace

const Dialect& dialect() {
  static const PeftDialect the_dialect;
  return the_dialect;
}

} // namespace opscope::dialects::peft
