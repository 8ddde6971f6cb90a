#include "opscope/features/dialect.h"

namespace opscope::features {

namespace {

Severity severity_of(dialects::Severity severity) {
  switch (severity) {
  case dialects::Severity::Error:
    return Severity::Error;
  case dialects::Severity::Warning:
    return Severity::Warning;
  case dialects::Severity::Information:
    return Severity::Information;
  }
  return Severity::Warning;
}

} // namespace

std::vector<Diagnostic> diagnose_dialect(const dialects::DialectDocument& document,
                                         const index::Index* model,
                                         const std::optional<ModelProblem>& problem) {
  std::vector<Diagnostic> out;
  if (problem)
    out.push_back({{}, problem->severity, problem->code, problem->message, {}});
  if (!model)
    return out;
  for (dialects::Finding& finding : document.diagnose(*model)) {
    Diagnostic d{finding.range,
                 severity_of(finding.severity),
                 std::move(finding.code),
                 std::move(finding.message),
                 {}};
    for (dialects::Replacement& fix : finding.fixes)
      d.fixes.push_back({std::move(fix.title), {fix.range, std::move(fix.new_text)}, true});
    out.push_back(std::move(d));
  }
  return out;
}

std::optional<Hover> hover_dialect(const dialects::DialectDocument& document,
                                   const index::Index* model, config::Position cursor) {
  if (!model)
    return std::nullopt;
  auto found = document.hover(*model, cursor);
  if (!found)
    return std::nullopt;
  return Hover{std::move(found->markdown), found->range};
}

CompletionList complete_dialect(const dialects::DialectDocument& document,
                                const index::Index* model, config::Position cursor,
                                const CompletionOptions& options) {
  CompletionList out;
  if (document.empty())
    return out;
  if (!model) {
    out.is_incomplete = true; // names come once the model has loaded
    return out;
  }
  std::vector<dialects::Suggestion> found = document.complete(*model, cursor);
  out.is_incomplete = found.size() > options.max_items;
  if (found.size() > options.max_items)
    found.resize(options.max_items);
  out.items.reserve(found.size());
  for (dialects::Suggestion& s : found) {
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
