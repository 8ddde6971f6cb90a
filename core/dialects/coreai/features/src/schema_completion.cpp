#include "opscope/features/schema_completion.h"

#include "opscope/schema/locate.h"
#include "text.h"

#include <algorithm>

namespace opscope::features {
namespace {

std::string type_text(const schema::Type& t) {
  using K = schema::Type::Kind;
  switch (t.kind) {
  case K::Any:
    return "any";
  case K::Null:
    return "null";
  case K::Bool:
    return "bool";
  case K::Int:
    return "int";
  case K::Float:
    return "float";
  case K::Str:
    return "str";
  case K::Enum:
    return t.name.empty() ? "enum" : t.name;
  case K::Literal: {
    std::string out;
    for (const schema::Value& v : t.literals)
      out += (out.empty() ? "" : " | ") + v.text();
    return out;
  }
  case K::Model:
    return t.name;
  case K::Registry:
    return t.name + " ({type: ...})";
  case K::Dict:
    return "dict[" + type_text(t.children[0]) + ", " + type_text(t.children[1]) + "]";
  case K::List:
    return "list[" + type_text(t.children[0]) + "]";
  case K::Tuple:
    return "tuple";
  case K::Union: {
    std::string out;
    for (const schema::Type& c : t.children)
      out += (out.empty() ? "" : " | ") + type_text(c);
    return out;
  }
  }
  return "";
}

std::string field_markdown(const schema::Field& f, const schema::Model* owner,
                           const schema::Schema& schema) {
  std::string md = "**" + f.name + "**: `" + type_text(f.type) + "`";
  if (owner)
    md += " — " + owner->name;
  md += "\n\n";
  if (!f.doc.empty())
    md += f.doc + "\n\n";
  if (f.required)
    md += "Required.";
  else if (f.default_text)
    md += "Default when left out: `" + *f.default_text + "`.";
  std::vector<std::string> values = schema::value_choices(f.type);
  if (!values.empty()) {
    md += "\n\nValues: ";
    for (std::size_t i = 0; i < values.size(); ++i)
      md += (i ? ", " : "") + ("`" + values[i] + "`");
  }
  md += "\n\n*coreai-opt " + schema.coreai_opt_version + "*";
  return md;
}

CompletionItem item(CompletionItem::Kind kind, const std::string& label, std::string detail,
                    std::string documentation, const config::Range& range, std::string new_text,
                    std::size_t order) {
  CompletionItem out;
  out.kind = kind;
  out.label = label;
  out.filter_text = label;
  out.detail = std::move(detail);
  out.documentation = std::move(documentation);
  char sort[8];
  std::snprintf(sort, sizeof sort, "%05zu", order);
  out.sort_text = sort;
  out.edit = {range, std::move(new_text)};
  return out;
}

// A key as it is written where the cursor is: a Python keyword argument as `name=`; a Python
// dict key's range is inside its quotes already.
std::string key_text(const std::string& name, const schema::Location& loc, config::Format format) {
  if (format != config::Format::Python)
    return detail::render_key(name, format, 0);
  return loc.keyword ? name + "=" : name;
}

bool is_number(const std::string& v) {
  return !v.empty() && (std::isdigit(static_cast<unsigned char>(v[0])) || v[0] == '-');
}

// A value as the document's format spells it.
std::string value_text(const std::string& v, config::Format format) {
  if (format == config::Format::Python) {
    if (v == "true" || v == "false")
      return v == "true" ? "True" : "False";
    if (v == "null")
      return "None";
    return is_number(v) ? v : detail::render_key(v, format, '"');
  }
  if (format == config::Format::Json &&
      !(v == "true" || v == "false" || v == "null" || is_number(v)))
    return "\"" + v + "\"";
  return v;
}

} // namespace

CompletionList schema_complete(const config::ConfigDocument& document, config::Position cursor,
                               const schema::Schema& schema, std::string_view expected_root) {
  CompletionList out;
  auto loc = schema::locate_for_completion(document, cursor, schema, expected_root);
  if (!loc)
    return out;
  if (loc->kind == schema::Location::Kind::Key) {
    auto written = [&](const std::string& name) {
      return std::find(loc->present.begin(), loc->present.end(), name) != loc->present.end();
    };
    for (const std::string& extra : loc->extra_keys)
      if (!written(extra))
        out.items.push_back(item(CompletionItem::Kind::Field, extra, "registered type", "",
                                 loc->range, key_text(extra, *loc, document.format),
                                 out.items.size()));
    if (loc->model)
      for (const schema::Field& f : loc->model->fields)
        if (!written(f.name))
          out.items.push_back(item(CompletionItem::Kind::Field, f.name, type_text(f.type),
                                   field_markdown(f, loc->model, schema), loc->range,
                                   key_text(f.name, *loc, document.format), out.items.size()));
    return out;
  }
  std::vector<std::string> values =
      loc->field ? schema::value_choices(loc->field->type) : loc->registry_keys;
  std::string detail = loc->field ? type_text(loc->field->type) : loc->registry_base;
  std::string doc = loc->field ? field_markdown(*loc->field, loc->model, schema) : "";
  for (const std::string& v : values) {
    std::string text = value_text(v, document.format);
    out.items.push_back(
        item(CompletionItem::Kind::Value, v, detail, doc, loc->range, text, out.items.size()));
    if (document.format == config::Format::Python) // the client filters what the range holds
      out.items.back().filter_text = text;
  }
  return out;
}

std::optional<Hover> schema_hover(const config::ConfigDocument& document, config::Position cursor,
                                  const schema::Schema& schema) {
  auto loc = schema::locate_written(document, cursor, schema);
  if (!loc)
    return std::nullopt;
  if (loc->field)
    return Hover{field_markdown(*loc->field, loc->model, schema), loc->range};
  if (loc->kind == schema::Location::Kind::Value && !loc->registry_base.empty()) {
    std::string md = "**type**: one of the registered " + loc->registry_base + " names: ";
    for (std::size_t i = 0; i < loc->registry_keys.size(); ++i)
      md += (i ? ", " : "") + ("`" + loc->registry_keys[i] + "`");
    return Hover{md, loc->range};
  }
  if (loc->kind == schema::Location::Kind::Key && loc->model && !loc->model->doc.empty())
    return std::nullopt; // a free key (a tensor name, a pattern): other hovers explain it
  return std::nullopt;
}

} // namespace opscope::features
