// context_at re-reads the document with a marker byte inserted at the cursor
// (like a compiler's code-completion token): whatever key, value or half-typed
// word the marker lands in tells what is being typed, through every broken
// shape the reader already tolerates.
#include "opscope/coreai/config/context.h"

#include "classify.h"
#include "context_detail.h"
#include "python_reader.h"

#include <algorithm>

namespace opscope::config {
namespace {

constexpr char kMarker = '\x1f'; // never in a real config; plain scalars keep it

std::vector<std::string> quantizer_values(const std::string& field) {
  if (field == "execution_mode")
    return {"graph", "eager"};
  return {};
}

// `range` in the marked text, shifted back to the original text.
Range unmark(Range range, Position marker) {
  auto fix = [&](Position p) {
    if (p.line == marker.line && p.byte_col > marker.byte_col)
      --p.byte_col;
    return p;
  };
  return {fix(range.start), fix(range.end)};
}

bool contains_marker(const Range& r, Position marker) {
  return r.start <= marker && marker < r.end;
}

} // namespace

std::vector<std::string> field_names(FieldLevel level, Compressor root) {
  if (level == FieldLevel::Document) {
    std::vector<std::string> f;
    for (const coreai::CompressorInfo& c : coreai::compressors())
      if (root == Compressor::None || root == c.id)
        f.insert(f.end(), {std::string(c.root_key), std::string(c.spec_key)});
    return f;
  }
  // Below the top level, a config without a root key is read as coreai-opt's default
  // compressor's, the Quantizer's.
  const coreai::CompressorInfo& c =
      *coreai::find(root == Compressor::None ? Compressor::Quantizer : root);
  auto append = [](std::vector<std::string>& f, std::span<const std::string_view> names) {
    for (std::string_view name : names)
      f.emplace_back(name);
  };
  switch (level) {
  case FieldLevel::Document:
    break;
  case FieldLevel::TopConfig: {
    std::vector<std::string> f = {"global_config", "module_type_configs", "module_name_configs"};
    append(f, c.top_config_fields);
    return f;
  }
  case FieldLevel::ModuleConfig: {
    std::vector<std::string> f;
    if (!c.weight_only)
      f = {"op_input_spec", "op_output_spec"};
    for (const char* name : {"op_state_spec", "op_type_config", "op_name_config"})
      f.push_back(name);
    if (!c.weight_only)
      f.insert(f.end(), {"module_input_spec", "module_output_spec"});
    f.push_back("module_state_spec");
    append(f, c.module_config_fields);
    return f;
  }
  case FieldLevel::OpConfig:
    if (c.weight_only)
      return {"op_state_spec"};
    return {"op_input_spec", "op_output_spec", "op_state_spec"};
  }
  return {};
}

namespace detail {

std::optional<CursorContext> context_in_pattern_key(const ConfigDocument& document,
                                                    Position cursor) {
  for (const PatternKey& key : document.keys) {
    if (key.via_alias || key.range.start.line != cursor.line || key.range.end.line != cursor.line ||
        cursor < key.range.start || key.range.end < cursor)
      continue;
    // A marker byte joins the key's own token (so the re-read would see the same key) only
    // at a column of its text: not before an opening quote, after a closing one, or inside
    // an escape.
    auto at = std::find(key.byte_cols.begin(), key.byte_cols.end(), cursor.byte_col);
    if (at == key.byte_cols.end())
      return std::nullopt;
    CursorContext ctx;
    ctx.format = document.format;
    ctx.kind = CursorContext::Kind::PatternKey;
    ctx.table = key.table;
    ctx.scope = key.scope;
    ctx.replace = key.range;
    ctx.typed = key.text.substr(0, static_cast<std::size_t>(at - key.byte_cols.begin()));
    ctx.quote = key.quote;
    ctx.raw = key.raw;
    return ctx;
  }
  return std::nullopt;
}

CursorContext context_by_marker(const ConfigDocument& document, Position cursor) {
  if (document.format == Format::Python)
    return python_context_by_marker(document, cursor);
  CursorContext ctx;
  ctx.format = document.format;
  detail::SourceText original(document.text);
  std::size_t offset = original.offset(cursor);
  cursor = original.position(offset); // clamped to the line
  std::string marked = document.text;
  marked.insert(offset, 1, kMarker);

  detail::SourceText source(marked);
  detail::Tree tree =
      document.format == Format::Json ? detail::scan_json(source) : detail::scan_yaml(source);
  ConfigDocument scratch;
  bool found = false;
  detail::classify(*tree.root, scratch, [&](const detail::Entry& e, const detail::EntryRole& role) {
    if (found || role.via_alias)
      return; // an aliased entry is also visited where it is written; use that
    if (contains_marker(e.key_range, cursor)) {
      found = true;
      ctx.replace = unmark(e.key_range, cursor);
      auto at = e.key.find(kMarker);
      ctx.typed = e.key.substr(0, at);
      ctx.quote = e.quote;
      if (role.kind == detail::EntryRole::Kind::PatternKey) {
        ctx.kind = CursorContext::Kind::PatternKey;
        ctx.table = role.table;
        ctx.scope = role.scope;
        ctx.scope.key_range = unmark(ctx.scope.key_range, cursor);
      } else {
        ctx.kind = CursorContext::Kind::FieldName;
        ctx.level = role.level;
        ctx.root = role.level == FieldLevel::Document ? scratch.root : role.root;
        ctx.fields = field_names(role.level,
                                 role.level == FieldLevel::Document ? Compressor::None : role.root);
      }
      return;
    }
    if (role.kind == detail::EntryRole::Kind::Field && e.value &&
        e.value->kind == detail::Node::Kind::Scalar && contains_marker(e.value->range, cursor)) {
      found = true;
      ctx.kind = CursorContext::Kind::FieldValue;
      ctx.field = e.key;
      ctx.level = role.level;
      ctx.root = role.root;
      ctx.values = quantizer_values(e.key);
      ctx.replace = unmark(e.value->range, cursor);
      ctx.typed = e.value->scalar.substr(0, e.value->scalar.find(kMarker));
      ctx.quote = e.value->quoted ? marked[source.offset(e.value->range.start)] : 0;
    }
  });
  return ctx;
}

} // namespace detail

CursorContext context_at(const ConfigDocument& document, Position cursor) {
  // Typing inside a pattern key is the common case: its context is already in the
  // document, so the re-read with a marker is only needed elsewhere.
  if (auto in_key = detail::context_in_pattern_key(document, cursor))
    return *in_key;
  return detail::context_by_marker(document, cursor);
}

} // namespace opscope::config
