#include "opscope/schema/locate.h"

#include "opscope/config/tree.h"

#include <algorithm>

namespace opscope::schema {
namespace {

using config::Entry;
using config::Node;
using config::Position;
using config::Range;

constexpr std::string_view kMarker = "\x1f"; // as core/config's context_at: never in a config
// Python: the marker may stand where a keyword argument's name is typed, so it is a name.
constexpr std::string_view kPythonMarker = "__opscope_cursor__";
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
  // `marker`: the text written at the cursor, empty when the tree is the document's own.
  // `line_end`: the byte length of the cursor's line, which no range may pass.
  Finder(const Schema& schema, Position cursor, std::string_view marker, int line_end = -1)
      : schema_(schema), cursor_(cursor), marker_(marker), line_end_(line_end) {}

  // Python: the documents given to from_dict, then every class call outside them.
  std::optional<Location> in_python(const config::Tree& tree) {
    const Node* root = tree.root.get();
    if (!root || root->kind != Node::Kind::Map)
      return std::nullopt;
    std::vector<bool> in_document(root->entries.size());
    for (const config::FromDict& site : tree.from_dict)
      for (std::size_t i = site.first; i < site.first + site.count && i < root->entries.size();
           ++i) {
        in_document[i] = true;
        const Entry& e = root->entries[i];
        const Root* r = schema_.root(e.key);
        if (!r || e.key != site.config_key)
          continue;
        Type model;
        model.kind = Type::Kind::Model;
        model.name = r->model;
        if (auto hit = in_value(e.value.get(), &model, 0))
          return hit;
      }
    for (std::size_t i = 0; i < root->entries.size(); ++i)
      if (!in_document[i] && root->entries[i].value)
        if (auto hit = in_calls(*root->entries[i].value, 0))
          return hit;
    return std::nullopt;
  }

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
  // The outermost class calls under a root entry: the entry's own value (a config class call)
  // or those inside the mappings the reader made of setters' arguments.
  std::optional<Location> in_calls(const Node& node, int depth) {
    if (depth > kMaxDepth)
      return std::nullopt;
    if (node.kind == Node::Kind::Map && !node.model.empty())
      return in_value(&node, nullptr, depth);
    for (const Entry& e : node.entries)
      if (e.value)
        if (auto hit = in_calls(*e.value, depth + 1))
          return hit;
    for (const auto& item : node.items)
      if (auto hit = in_calls(*item, depth + 1))
        return hit;
    return std::nullopt;
  }

  bool hit(const Range& r, const std::string& text) const {
    return !marker_.empty() ? text.find(marker_) != std::string::npos : contains(r, cursor_);
  }

  std::string before_marker(const std::string& s) const { return s.substr(0, s.find(marker_)); }

  Range unmarked(Range r) const {
    if (!marker_.empty() && r.end.line == cursor_.line && r.end.byte_col > cursor_.byte_col) {
      r.end.byte_col -= static_cast<int>(marker_.size());
      if (line_end_ >= 0) // a closing quote the re-read added
        r.end.byte_col = std::min(r.end.byte_col, line_end_);
    }
    return r;
  }

  std::optional<Location> in_value(const Node* written, const Type* type, int depth) {
    const Node* node = resolve(written);
    if (!node || depth > kMaxDepth ||
        (!type && (node->kind != Node::Kind::Map || node->model.empty())))
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
    bool registry = false;
    bool keyword = !node->model.empty(); // Python: a class call's keyword arguments
    if (keyword) {
      model = schema_.model(node->model);
      if (!model)
        return std::nullopt; // a class this schema does not know: not checked, not completed
    } else if (!type) {
      return std::nullopt;
    } else if (type->kind == Type::Kind::Model) {
      model = schema_.model(type->name);
    } else if (type->kind == Type::Kind::Dict && type->children.size() == 2) {
      dict_value = &type->children[1];
    } else if (type->kind == Type::Kind::Registry) {
      model = registry_model(*node, *type);
      registry = true;
    } else {
      return std::nullopt;
    }
    std::vector<std::string> present;
    for (const Entry& e : node->entries)
      if (marker_.empty() || e.key.find(marker_) == std::string::npos)
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
        loc.keyword = keyword;
        if (registry) // `type` picks the registered model
          loc.extra_keys.push_back("type");
        return loc;
      }
      const Type* value_type = field ? &field->type : dict_value;
      const Node* v = e.value.get();
      if (registry && e.key == "type") {
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
  std::string_view marker_;
  int line_end_;
};

} // namespace

std::optional<Location> locate_for_completion(const config::ConfigDocument& document,
                                              config::Position cursor, const Schema& schema,
                                              std::string_view expected_root) {
  bool python = document.format == config::Format::Python;
  std::string_view marker = python ? kPythonMarker : kMarker;
  config::Tree tree = config::scan_marked(document, cursor, marker);
  if (!tree.root)
    return std::nullopt;
  std::size_t line_start = 0;
  for (int line = 0; line < cursor.line; ++line)
    line_start = document.text.find('\n', line_start) + 1;
  std::size_t line_end = document.text.find('\n', line_start);
  if (line_end == std::string::npos)
    line_end = document.text.size();
  Finder finder(schema, cursor, marker, static_cast<int>(line_end - line_start));
  return python ? finder.in_python(tree) : finder.in_document(*tree.root, expected_root);
}

std::optional<Location> locate_written(const config::ConfigDocument& document,
                                       config::Position cursor, const Schema& schema) {
  if (!document.tree || !document.tree->root)
    return std::nullopt;
  Finder finder(schema, cursor, {});
  if (document.format == config::Format::Python)
    return finder.in_python(*document.tree);
  return finder.in_document(*document.tree->root, {});
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
