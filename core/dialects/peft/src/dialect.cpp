#include "opscope/dialects/peft/dialect.h"

#include "explain.h"
#include "opscope/dialects/peft/peft.h"

namespace opscope::dialects::peft {
namespace {

// A file's PEFT configs (a script may hold several), read once per revision.
class PeftDocument final : public DialectDocument {
public:
  explicit PeftDocument(std::vector<PeftConfig> configs) : configs_(std::move(configs)) {}

  bool empty() const override { return configs_.empty(); }

  std::optional<std::string> model() const override {
    for (const PeftConfig& config : configs_)
      if (config.base_model)
        return config.base_model->text;
    return std::nullopt;
  }

  std::vector<Diagnostic> diagnose(const index::Index& model) const override {
    std::vector<Diagnostic> out;
    for (const PeftConfig& config : configs_) {
      std::vector<Diagnostic> found = peft::diagnose(config, resolve(config, model), model);
      out.insert(out.end(), std::make_move_iterator(found.begin()),
                 std::make_move_iterator(found.end()));
    }
    return out;
  }

  std::optional<Hover> hover(const index::Index& model, config::Position cursor) const override {
    const PeftConfig* config = config_at(cursor);
    if (!config)
      return std::nullopt;
    return peft::hover(*config, resolve(*config, model), model, cursor);
  }

  std::vector<CompletionItem> complete(const index::Index& model,
                                       config::Position cursor) const override {
    const PeftConfig* config = config_at(cursor);
    if (!config)
      return {};
    return peft::complete(*config, model, cursor);
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

  std::vector<PeftConfig> configs_;
};

class PeftDialect final : public Dialect {
public:
  std::string_view name() const override { return "peft"; }
  bool recognises(const std::string& path, const std::string& text) const override {
    return looks_like_peft(path, text);
  }
  std::shared_ptr<const DialectDocument> read(const std::string& path,
                                              const std::string& text) const override {
    return std::make_shared<const PeftDocument>(read_peft_configs(path, text));
  }
};

} // namespace

const Dialect& dialect() {
  static const PeftDialect the_dialect;
  return the_dialect;
}

} // namespace opscope::dialects::peft
