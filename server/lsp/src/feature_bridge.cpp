#include "feature_bridge.h"

#include <filesystem>

namespace opscope::lsp {
namespace {

protocol::CompletionItemKind item_kind(dialects::CompletionItem::Kind kind) {
  using K = dialects::CompletionItem::Kind;
  switch (kind) {
  case K::Module:
    return protocol::CompletionItemKind::Module;
  case K::ModuleType:
    return protocol::CompletionItemKind::Class;
  case K::Op:
    return protocol::CompletionItemKind::Function;
  case K::OpType:
    return protocol::CompletionItemKind::Enum;
  case K::Field:
    return protocol::CompletionItemKind::Property;
  case K::Value:
    return protocol::CompletionItemKind::Value;
  }
  return protocol::CompletionItemKind::Text;
}

} // namespace

protocol::CompletionList complete(const FeatureInput& in, protocol::Position cursor,
                                  std::size_t max_items) {
  dialects::CompletionOptions options;
  options.max_items = max_items;
  dialects::CompletionList found =
      in.document.completion(in.context, in.positions.to_config(cursor), options);
  protocol::CompletionList out;
  out.is_incomplete = found.is_incomplete;
  out.items.reserve(found.items.size());
  // Items usually share the range being typed: convert it once.
  std::optional<std::pair<config::Range, protocol::Range>> converted;
  for (auto& item : found.items) {
    if (!converted || !(converted->first == item.edit.range))
      converted.emplace(item.edit.range, in.positions.to_lsp(item.edit.range));
    protocol::CompletionItem lsp;
    lsp.label = std::move(item.label);
    lsp.kind = item_kind(item.kind);
    lsp.detail = std::move(item.detail);
    lsp.sort_text = std::move(item.sort_text);
    lsp.filter_text = std::move(item.filter_text);
    lsp.documentation = std::move(item.documentation);
    lsp.text_edit = protocol::TextEdit{converted->second, std::move(item.edit.new_text)};
    out.items.push_back(std::move(lsp));
  }
  return out;
}

std::optional<protocol::Hover> hover(const FeatureInput& in, protocol::Position cursor) {
  std::optional<dialects::Hover> found =
      in.document.hover_at(in.context, in.positions.to_config(cursor));
  if (!found)
    return std::nullopt;
  return protocol::Hover{found->markdown, in.positions.to_lsp(found->range)};
}

namespace {

protocol::DiagnosticSeverity severity_of(dialects::Severity severity) {
  switch (severity) {
  case dialects::Severity::Error:
    return protocol::DiagnosticSeverity::Error;
  case dialects::Severity::Warning:
    return protocol::DiagnosticSeverity::Warning;
  case dialects::Severity::Information:
    return protocol::DiagnosticSeverity::Information;
  }
  return protocol::DiagnosticSeverity::Warning;
}

protocol::Diagnostic to_lsp(const FeatureInput& in, const dialects::Diagnostic& d) {
  protocol::Diagnostic out;
  out.range = in.positions.to_lsp(d.range);
  out.severity = severity_of(d.severity);
  out.code = d.code;
  out.message = d.message;
  protocol::Json names = protocol::Json::array();
  for (const auto& fix : d.fixes)
    if (fix.replacement)
      names.push_back(fix.edit.new_text);
  if (!names.empty())
    out.data = {{"replacements", names}};
  return out;
}

bool overlaps(const protocol::Range& a, const protocol::Range& b) {
  return !(a.end < b.start) && !(b.end < a.start);
}

} // namespace

std::vector<protocol::Diagnostic> to_lsp(const FeatureInput& in,
                                         const std::vector<dialects::Diagnostic>& diagnostics) {
  std::vector<protocol::Diagnostic> out;
  out.reserve(diagnostics.size());
  for (const auto& d : diagnostics)
    out.push_back(to_lsp(in, d));
  return out;
}

std::vector<protocol::Location> definition(const FeatureInput& in, protocol::Position cursor) {
  std::vector<protocol::Location> out;
  namespace fs = std::filesystem;
  for (const auto& loc : in.document.definition(in.context, in.positions.to_config(cursor))) {
    fs::path file(loc.file);
    if (file.is_relative() && !in.source_base.empty())
      file = fs::path(in.source_base) / file;
    int line = std::max(loc.line - 1, 0);
    out.push_back(
        {protocol::uri_from_path(file.lexically_normal().string()), {{line, 0}, {line, 0}}});
  }
  return out;
}

protocol::Json code_lenses(const FeatureInput& in) {
  protocol::Json out = protocol::Json::array();
  for (const dialects::CodeLens& lens : in.document.code_lenses(in.context))
    out.push_back({{"range", in.positions.to_lsp(lens.range)},
                   {"command", {{"title", lens.title}, {"command", ""}}}});
  return out;
}

std::vector<protocol::CodeAction> code_actions(const FeatureInput& in,
                                               const std::vector<dialects::Diagnostic>& diagnostics,
                                               protocol::Range range) {
  std::vector<protocol::CodeAction> out;
  for (const auto& d : diagnostics) {
    if (d.fixes.empty())
      continue;
    protocol::Diagnostic lsp = to_lsp(in, d);
    if (!overlaps(lsp.range, range))
      continue;
    bool first = true;
    for (const auto& fix : d.fixes) {
      protocol::CodeAction action;
      action.title = fix.title;
      action.diagnostics = {lsp};
      action.is_preferred = first;
      first = false;
      action.edit.uri = in.uri;
      action.edit.edits = {{in.positions.to_lsp(fix.edit.range), fix.edit.new_text}};
      out.push_back(std::move(action));
    }
  }
  return out;
}

} // namespace opscope::lsp
