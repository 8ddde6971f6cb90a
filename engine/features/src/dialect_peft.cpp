#include "opscope/features/dialect_peft.h"

namespace opscope::features {
namespace peft = dialects::peft;

namespace {

Severity severity_of(peft::Severity severity) {
  switch (severity) {
  case peft::Severity::Error:
    return Severity::Error;
  case peft::Severity::Warning:
    return Severity::Warning;
  case peft::Severity::Information:
    return Severity::Information;
  }
  return Severity::Warning;
}

// The config the cursor is in: the last one starting at or before it (a script may hold several).
const peft::PeftConfig* config_at(const PeftConfigs& configs, config::Position cursor) {
  const peft::PeftConfig* found = nullptr;
  for (const peft::PeftConfig& config : configs)
    if (config.anchor.start <= cursor)
      found = &config;
  return found ? found : (configs.empty() ? nullptr : &configs.front());
}

} // namespace

std::vector<Diagnostic> diagnose_peft(const PeftConfigs& configs, const index::Index* model,
                                      const std::optional<ModelProblem>& problem) {
  std::vector<Diagnostic> out;
  if (problem)
    out.push_back({{}, problem->severity, problem->code, problem->message, {}});
  if (!model)
    return out;
  for (const peft::PeftConfig& config : configs) {
    peft::Resolution resolution = peft::resolve(config, *model);
    for (peft::Finding& finding : peft::diagnose(config, resolution, *model)) {
      Diagnostic d{finding.range,
                   severity_of(finding.severity),
                   std::move(finding.code),
                   std::move(finding.message),
                   {}};
      for (peft::Replacement& fix : finding.fixes)
        d.fixes.push_back({std::move(fix.title), {fix.range, std::move(fix.new_text)}, true});
      out.push_back(std::move(d));
    }
  }
  return out;
}

std::optional<Hover> hover_peft(const PeftConfigs& configs, const index::Index* model,
                                config::Position cursor) {
  const peft::PeftConfig* config = config_at(configs, cursor);
  if (!config || !model)
    return std::nullopt;
  peft::Resolution resolution = peft::resolve(*config, *model);
  auto found = peft::hover(*config, resolution, *model, cursor);
  if (!found)
    return std::nullopt;
  return Hover{std::move(found->markdown), found->range};
}

CompletionList complete_peft(const PeftConfigs& configs, const index::Index* model,
                             config::Position cursor, const CompletionOptions& options) {
  CompletionList out;
  const peft::PeftConfig* config = config_at(configs, cursor);
  if (!config)
    return out;
  if (!model) {
    out.is_incomplete = true; // names come once the model has loaded
    return out;
  }
  std::vector<peft::Suggestion> found = peft::complete(*config, *model, cursor);
  out.is_incomplete = found.size() > options.max_items;
  if (found.size() > options.max_items)
    found.resize(options.max_items);
  out.items.reserve(found.size());
  for (peft::Suggestion& s : found) {
    CompletionItem item;
    item.kind = CompletionItem::Kind::Module;
    item.filter_text = s.label;
    item.edit = {s.replace, s.label};
    item.label = std::move(s.label);
    item.detail = std::move(s.detail);
    item.sort_text = std::move(s.sort_text);
    out.items.push_back(std::move(item));
  }
  return out;
}

} // namespace opscope::features
