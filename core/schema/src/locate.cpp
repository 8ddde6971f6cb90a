#include "opscope/schema/locate.h"

#include "opscope/config/tree.h"

#include <algorithm>

namespace opscope::schema {
namespace {

using config::Entry;
using config::Node;
using config::Position;
using config::Range;

constexpr char kMarker = '\x1f'; // as core/config's context_at: never in a real config
constexpr int kMaxDepth = 300;

const Node* resolve(const Node* node) {
  for (int hops = 0; node && node->kind == Node::Kind::Alias; ++hops) {
    if (hops > 32)
      return nullptr;
    node = node->target;
  }
  return node;
}

bool contains(const Range& r, Position p) {
  return r.start <= p && p <= r.end;
}

// The type a mapping / list / scalar written at this place has: a union's option that fits.
const Type* for_node(const Type* t, const Node* node) {
  if (!t || t->kind != Type::Kind::Union)
    return t;
  Node::Kind k = node ? node->kind : Node::Kind::Null;
  for (const Type& option : t->children) {
    bool fits = (k == Node::Kind::Map &&
                 (option.kind == Type::Kind::Model || option.kind == Type::Kind::Dict ||
                  option.kind == Type::Kind::Registry)) ||
                (k == Node::Kind::Seq &&
                 (option.kind == Type::Kind::List || option.kind == Type::Kind::Tuple));
    if (fits)
      return for_node(&option, node);
  }
  return t;
}

class Finder {
public:
  Finder(const Schema& schema, Position cursor, bool marker)
      : schema_(schema), cursor_(cursor), marker_(marker) {}

  std::optional<Location> in_document(const Node& root, std::string_view expected_root) {
    const Node* top = resolve(&root);
    if (!top || top->kind != Node::Kind::Map)
      return std::nullopt;
    const Root* found = nullptr;
    for (const Entry& e : top->entries)
      if (!found)
        found = schema_.root(e.key);
    if (!found)
      found = schema_.root(expected_root);
    if (!found)
      return std::nullopt;
    for (const Entry& e : top->entries) {
      if (e.key != found->config_key)
        continue;
      Type model;
      model.kind = Type::Kind::Model;
      model.name = found->model;
      if (auto hit = in_value(e.value.get(), &model, 0))
        return hit;
    }
    return std::nullopt;
  }

private:
  bool hit(const Range& r, const std::string& text) const {
    return marker_ ? text.find(kMarker) != std::string::npos : contains(r, cursor_);
  }

  std::string before_marker(const std::string& s) const { return s.substr(0, s.find(kMarker)); }

  Range unmarked(Range r) const {
    if (marker_ && r.end.line == cursor_.line && r.end.byte_col > cursor_.byte_col)
      --r.end.byte_col;
    return r;
  }

  std::optional<Location> in_value(const Node* written, const Type* type, int depth) {
    const Node* node = resolve(written);
    if (!node || depth > kMaxDepth || !type)
      return std::nullopt;
    type = for_node(type, node);
    if (node->kind == Node::Kind::Seq) {
      const Type* item =
          type->kind == Type::Kind::List && !type->children.empty() ? &type->children[0] : nullptr;
      for (const auto& i : node->items)
        if (auto h = in_value(i.get(), item, depth + 1))
          return h;
      return std::nullopt;
    }
    if (node->kind != Node::Kind::Map)
      return std::nullopt;
    const Model* model = nullptr;
    const Type* dict_value = nullptr;
    if (type->kind == Type::Kind::Model) {
      model = schema_.model(type->name);
    } else if (type->kind == Type::Kind::Dict && type->children.size() == 2) {
      dict_value = &type->children[1];
    } else if (type->kind == Type::Kind::Registry) {
      model = registry_model(*node, *type);
    } else {
      return std::nullopt;
    }
    std::vector<std::string> present;
    for (const Entry& e : node->entries)
      if (e.key.find(kMarker) == std::string::npos)
        present.push_back(e.key);
    for (const Entry& e : node->entries) {
      const Field* field = model ? model->field(e.key) : nullptr;
      if (hit(e.key_range, e.key)) {
        Location loc;
        loc.kind = Location::Kind::Key;
        loc.model = model;
        loc.field = field;
        loc.present = present;
        loc.range = unmarked(e.key_range);
        loc.typed = before_marker(e.key);
        if (type->kind == Type::Kind::Registry) // `type` picks the registered model
          loc.extra_keys.push_back("type");
        return loc;
      }
      const Type* value_type = field ? &field->type : dict_value;
      const Node* v = e.value.get();
      if (type->kind == Type::Kind::Registry && e.key == "type") {
        if (v && v->kind == Node::Kind::Scalar && hit(v->range, v->scalar)) {
          Location loc = value_location(model, nullptr, *v);
          for (const auto& [key, m] : type->registry)
            loc.registry_keys.push_back(key);
          loc.registry_base = type->name;
          return loc;
        }
        continue;
      }
      if (v && (v->kind == Node::Kind::Scalar || v->kind == Node::Kind::Null) && field &&
          hit(v->range, v->scalar))
        return value_location(model, field, *v);
      if (auto h = in_value(v, value_type, depth + 1))
        return h;
    }
    return std::nullopt;
  }

  Location value_location(const Model* model, const Field* field, const Node& v) const {
    Location loc;
    loc.kind = Location::Kind::Value;
    loc.model = model;
    loc.field = field;
    loc.range = unmarked(v.range);
    loc.typed = before_marker(v.scalar);
    return loc;
  }

  const Model* registry_model(const Node& map, const Type& t) const {
    for (const Entry& e : map.entries)
      if (e.key == "type" && e.value && e.value->kind == Node::Kind::Scalar)
        for (const auto& [key, model] : t.registry)
          if (key == e.value->scalar)
            return schema_.model(model);
    return nullptr;
  }

  const Schema& schema_;
  Position cursor_;
  bool marker_;
};

// The byte offset of `cursor` in `text`; a cursor past its line's end (or past the last line)
// moves to that end, and `cursor` is updated to where it is.
std::size_t clamped_offset(std::string_view text, Position& cursor) {
  if (cursor.line < 0) {
    cursor = {0, 0};
    return 0;
  }
  std::size_t start = 0;
  int line = 0;
  for (; line < cursor.line; ++line) {
    std::size_t newline = text.find('\n', start);
    if (newline == std::string_view::npos)
      break;
    start = newline + 1;
  }
  std::size_t end = text.find('\n', start);
  if (end == std::string_view::npos)
    end = text.size();
  std::size_t offset =
      line < cursor.line ? end : std::min(start + std::size_t(std::max(cursor.byte_col, 0)), end);
  cursor = {line, static_cast<int>(offset - start)};
  return offset;
}

} // namespace

std::optional<Location> locate_for_completion(const config::ConfigDocument& document,
                                              config::Position cursor, const Schema& schema,
                                              std::string_view expected_root) {
  if (document.format == config::Format::Python)
    return std::nullopt; // read as Python by core/config; the YAML scanner would misread it
  std::size_t offset = clamped_offset(document.text, cursor);
  std::string marked = document.text;
  marked.insert(offset, 1, kMarker);
  config::Tree tree = config::scan_tree(marked, document.format);
  if (!tree.root)
    return std::nullopt;
  return Finder(schema, cursor, true).in_document(*tree.root, expected_root);
}

std::optional<Location> locate_written(const config::ConfigDocument& document,
                                       config::Position cursor, const Schema& schema) {
  if (!document.tree || !document.tree->root)
    return std::nullopt;
  return Finder(schema, cursor, false).in_document(*document.tree->root, {});
}

std::vector<std::string> value_choices(const Type& type) {
  std::vector<std::string> out;
  auto add = [&](const std::string& v) {
    if (std::find(out.begin(), out.end(), v) == out.end())
      out.push_back(v);
  };
  switch (type.kind) {
  case Type::Kind::Union:
    for (const Type& option : type.children)
      for (const std::string& v : value_choices(option))
        add(v);
    break;
  case Type::Kind::Enum:
    for (const std::string& v : type.values)
      add(v);
    break;
  case Type::Kind::Literal:
    for (const Value& v : type.literals)
      add(v.text());
    break;
  case Type::Kind::Bool:
    add("true");
    add("false");
    break;
  case Type::Kind::Null:
    add("null");
    break;
  default:
    break;
  }
  if (type.none_ok)
    add("null");
  return out;
}

} // namespace opscope::schema
