#include "fields.h"

#include <charconv>

namespace opscope::dialects::llmcompressor::detail {
namespace {

using config::Node;
using config::ScalarType;

bool is_null(const Node* n) {
  if (!n || n->kind == Node::Kind::Null)
    return true;
  if (n->kind != Node::Kind::Scalar || n->quoted)
    return false;
  return n->scalar == "null" || n->scalar == "~" || n->scalar == "None" || n->scalar.empty();
}

bool is_string(const Node& n) {
  return n.kind == Node::Kind::Scalar && n.type != ScalarType::Expression &&
         n.type != ScalarType::Int && n.type != ScalarType::Float && n.type != ScalarType::Bool;
}

std::optional<long long> integer(const Node& n) {
  if (n.kind != Node::Kind::Scalar || n.type == ScalarType::Expression ||
      n.type == ScalarType::Str || n.type == ScalarType::Bool)
    return std::nullopt;
  long long v = 0;
  const char* b = n.scalar.data();
  const char* e = b + n.scalar.size();
  if (b != e && *b == '+')
    ++b;
  auto [end, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || end != e)
    return std::nullopt;
  return v;
}

std::optional<bool> boolean(const Node& n) {
  if (n.kind != Node::Kind::Scalar || n.type == ScalarType::Expression)
    return std::nullopt;
  for (std::string_view t : {"true", "True", "TRUE"})
    if (n.scalar == t)
      return true;
  for (std::string_view f : {"false", "False", "FALSE"})
    if (n.scalar == f)
      return false;
  return std::nullopt;
}

// A list of strings; a lone string is a one-item list (validate_targets). Anything else is
// unreadable.
std::vector<Written> strings(const Node* n, Modifier& out) {
  std::vector<Written> items;
  n = followed(n);
  if (!n || is_null(n))
    return items;
  if (n->kind == Node::Kind::Seq) {
    for (const auto& item : n->items) {
      const Node* i = followed(item.get());
      if (i && is_string(*i))
        items.push_back({i->scalar, i->range});
      else
        out.unreadable.push_back(item ? item->range : n->range);
    }
  } else if (is_string(*n)) {
    items.push_back({n->scalar, n->range});
  } else {
    out.unreadable.push_back(n->range);
  }
  return items;
}

std::optional<QuantArgs> quant_args(const Node* n, Modifier& out) {
  n = followed(n);
  if (!n || is_null(n))
    return std::nullopt;
  if (n->kind != Node::Kind::Map) {
    out.unreadable.push_back(n->range);
    return std::nullopt;
  }
  QuantArgs a;
  a.range = n->range;
  for (const config::Entry& e : n->entries) {
    const Node* v = followed(e.value.get());
    if (!v)
      continue;
    if (e.key == "num_bits") {
      if (auto i = integer(*v))
        a.num_bits = static_cast<int>(*i);
      else
        out.unreadable.push_back(v->range);
    } else if (e.key == "type" && is_string(*v)) {
      a.type = v->scalar;
    } else if (e.key == "strategy") {
      if (!is_null(v) && is_string(*v))
        a.strategy = v->scalar;
    } else if (e.key == "group_size") {
      if (is_null(v))
        a.group_size.reset();
      else if (auto i = integer(*v))
        a.group_size = *i;
      else
        out.unreadable.push_back(v->range);
    } else if (e.key == "symmetric") {
      if (auto b = boolean(*v))
        a.symmetric = *b;
    } else if (e.key == "dynamic") {
      if (auto b = boolean(*v))
        a.dynamic = *b ? "true" : "false";
      else if (is_string(*v))
        a.dynamic = v->scalar;
    } else if (e.key == "block_structure") {
      a.block_structure = !is_null(v);
    } else if (e.key == "actorder") {
      auto b = boolean(*v);
      a.actorder = !is_null(v) && !(b && !*b);
    }
  }
  return a;
}

SchemeArgs scheme_args(const Node& map, Modifier& out) {
  SchemeArgs s;
  s.weights = quant_args(find(map, "weights"), out);
  s.input_activations = quant_args(find(map, "input_activations"), out);
  s.output_activations = quant_args(find(map, "output_activations"), out);
  return s;
}

void config_groups(const Node* n, Modifier& out) {
  n = followed(n);
  if (!n || is_null(n))
    return;
  if (n->kind != Node::Kind::Map) {
    out.unreadable.push_back(n->range);
    return;
  }
  out.config_groups_set = true;
  for (const config::Entry& e : n->entries) {
    const Node* g = followed(e.value.get());
    if (!g || g->kind != Node::Kind::Map) {
      out.unreadable.push_back(e.value ? e.value->range : e.key_range);
      continue;
    }
    ConfigGroup group;
    group.name = {e.key, e.key_range};
    group.range = g->range;
    group.targets = strings(find(*g, "targets"), out);
    group.args = scheme_args(*g, out);
    out.config_groups.push_back(std::move(group));
  }
}

void scheme(const Node* n, Modifier& out) {
  n = followed(n);
  if (!n || is_null(n))
    return;
  if (is_string(*n)) {
    out.scheme = Written{n->scalar, n->range};
    return;
  }
  if (n->kind != Node::Kind::Map) {
    out.unreadable.push_back(n->range);
    return;
  }
  for (const config::Entry& e : n->entries)
    out.scheme_targets.emplace_back(Written{e.key, e.key_range}, strings(e.value.get(), out));
}

// `[[balance...], smooth]` (SmoothQuant) or `{smooth_layer, balance_layers}` (AWQ).
void mappings(const Node* n, Modifier& out) {
  n = followed(n);
  if (!n || is_null(n))
    return;
  if (n->kind != Node::Kind::Seq) {
    out.unreadable.push_back(n->range);
    return;
  }
  for (const auto& item : n->items) {
    const Node* m = followed(item.get());
    if (!m)
      continue;
    Mapping mapping;
    mapping.range = m->range;
    if (m->kind == Node::Kind::Seq && m->items.size() == 2) {
      mapping.balance = strings(m->items[0].get(), out);
      if (const Node* s = followed(m->items[1].get()); s && is_string(*s))
        mapping.smooth = Written{s->scalar, s->range};
      else
        out.unreadable.push_back(m->items[1] ? m->items[1]->range : m->range);
    } else if (m->kind == Node::Kind::Map) {
      mapping.balance = strings(find(*m, "balance_layers"), out);
      if (const Node* s = followed(find(*m, "smooth_layer")); s && is_string(*s))
        mapping.smooth = Written{s->scalar, s->range};
    } else {
      out.unreadable.push_back(m->range);
      continue;
    }
    out.mappings.push_back(std::move(mapping));
  }
}

} // namespace

const Node* followed(const Node* n) {
  for (int hops = 0; n && n->kind == Node::Kind::Alias && hops < 64; ++hops)
    n = n->target;
  return n && n->kind == Node::Kind::Alias ? nullptr : n;
}

const Node* find(const Node& map, std::string_view key) {
  if (map.kind != Node::Kind::Map)
    return nullptr;
  for (const config::Entry& e : map.entries)
    if (e.key == key)
      return e.value ? e.value.get() : nullptr;
  return nullptr;
}

void read_modifier(const Node& map, Modifier& out) {
  for (const config::Entry& e : map.entries)
    out.fields.push_back({e.key, e.key_range});
  if (const Node* t = find(map, "targets"); t && !is_null(followed(t))) {
    out.targets_set = true;
    out.targets = strings(t, out);
  }
  out.ignore = strings(find(map, "ignore"), out);
  scheme(find(map, "scheme"), out);
  config_groups(find(map, "config_groups"), out);
  mappings(find(map, "mappings"), out);
  out.kv_cache_scheme = !is_null(followed(find(map, "kv_cache_scheme")));
  if (const Node* b = followed(find(map, "bypass_divisibility_checks")))
    out.bypass_divisibility_checks = boolean(*b).value_or(false);
  if (map.partial)
    out.unreadable.push_back(map.range);
}

void read_checkpoint(const Node& map, Modifier& out) {
  out.ignore = strings(find(map, "ignore"), out);
  config_groups(find(map, "config_groups"), out);
  if (const Node* f = followed(find(map, "format")); f && is_string(*f))
    out.format = Written{f->scalar, f->range};
}

} // namespace opscope::dialects::llmcompressor::detail
