#include "feature_bridge.h"

#include "opscope/features/completion.h"
#include "opscope/features/definition.h"
#include "opscope/features/diagnostics.h"
#include "opscope/features/dialect.h"
#include "opscope/features/hover.h"
#include "opscope/features/projected_size.h"
#include "opscope/features/schema_completion.h"

#include <filesystem>

namespace opscope::lsp {
namespace {

protocol::CompletionItemKind item_kind(features::CompletionItem::Kind kind) {
  using K = features::CompletionItem::Kind;
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

features::Model model_of(const FeatureInput& in) {
  return {in.index, in.compressor, in.queries, in.resolution,
          in.weight_error ? &*in.weight_error : nullptr};
}

const schema::Schema& schema_of(const FeatureInput& in) {
  return in.schema ? *in.schema : *schema::builtin(); // the built-in copy lives forever
}

} // namespace

protocol::CompletionList complete(const FeatureInput& in, protocol::Position cursor,
                                  std::size_t max_items) {
  features::Model model = model_of(in);
  features::CompletionOptions options;
  options.max_items = max_items;
  features::CompletionList found =
      in.dialect ? features::complete_dialect(*in.dialect, in.index, in.positions.to_config(cursor),
                                              options)
                 : features::complete(in.config, in.positions.to_config(cursor),
                                      in.index ? &model : nullptr, options);
  if (found.items.empty() &&
      !in.dialect) { // not a pattern key or a known field: coreai-opt's models say
    const coreai::CompressorInfo* c = coreai::find(in.compressor);
    found = features::schema_complete(in.config, in.positions.to_config(cursor), schema_of(in),
                                      c ? c->root_key : std::string_view());
  }
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
  if (in.dialect) {
    auto found = features::hover_dialect(*in.dialect, in.index, in.positions.to_config(cursor));
    if (!found)
      return std::nullopt;
    return protocol::Hover{found->markdown, in.positions.to_lsp(found->range)};
  }
  features::Model model = model_of(in);
  auto found =
      features::hover(in.config, in.positions.to_config(cursor), in.index ? &model : nullptr);
  if (!found)
    found = features::schema_hover(in.config, in.positions.to_config(cursor), schema_of(in));
  if (!found)
    return std::nullopt;
  return protocol::Hover{found->markdown, in.positions.to_lsp(found->range)};
}

namespace {

protocol::DiagnosticSeverity severity_of(features::Severity severity) {
  switch (severity) {
  case features::Severity::Error:
    return protocol::DiagnosticSeverity::Error;
  case features::Severity::Warning:
    return protocol::DiagnosticSeverity::Warning;
  case features::Severity::Information:
    return protocol::DiagnosticSeverity::Information;
  }
  return protocol::DiagnosticSeverity::Warning;
}

protocol::Diagnostic to_lsp(const FeatureInput& in, const features::Diagnostic& d) {
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
                                         const std::vector<features::Diagnostic>& diagnostics) {
  std::vector<protocol::Diagnostic> out;
  out.reserve(diagnostics.size());
  for (const auto& d : diagnostics)
    out.push_back(to_lsp(in, d));
  return out;
}

std::vector<protocol::Location> definition(const FeatureInput& in, protocol::Position cursor) {
  std::vector<protocol::Location> out;
  if (!in.index)
    return out;
  features::Model model = model_of(in);
  namespace fs = std::filesystem;
  for (const auto& loc : features::definition(in.config, in.positions.to_config(cursor), model)) {
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
  if (!in.index)
    return out;
  features::Model model = model_of(in);
  for (const features::CodeLens& lens : features::code_lenses(in.config, &model))
    out.push_back({{"range", in.positions.to_lsp(lens.range)},
                   {"command", {{"title", lens.title}, {"command", ""}}}});
  return out;
}

std::vector<protocol::CodeAction> code_actions(const FeatureInput& in,
                                               const std::vector<features::Diagnostic>& diagnostics,
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
