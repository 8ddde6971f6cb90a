#include "fields.h"

#include "opscope/config/scalar_values.h"

namespace opscope::dialects::llmcompressor::detail {
namespace {

using config::Node;
using config::ScalarType;

// A list of strings; a lone string is a one-item list (validate_targets). Anything else is
// unreadable.
std::vector<Written> strings(const Node* n, Modifier& out) {
  std::vector<Written> items;
  n = config::follow_aliases(n);
  if (!n || config::is_null_value(n))
    return items;
  if (n->kind == Node::Kind::Seq) {
    for (const auto& item : n->items) {
      const Node* i = config::follow_aliases(item.get());
      if (i && config::is_string_value(*i))
        items.push_back({i->scalar, i->range});
      else
        out.unreadable.push_back(item ? item->range : n->range);
    }
  } else if (config::is_string_value(*n)) {
    items.push_back({n->scalar, n->range});
  } else {
    out.unreadable.push_back(n->range);
  }
  return items;
}

std::optional<QuantArgs> quant_args(const Node* n, Modifier& out) {
  n = config::follow_aliases(n);
  if (!n || config::is_null_value(n))
    return std::nullopt;
  if (n->kind != Node::Kind::Map) {
    out.unreadable.push_back(n->range);
    return std::nullopt;
  }
  QuantArgs a;
  a.range = n->range;
  for (const config::Entry& e : n->entries) {
    const Node* v = config::follow_aliases(e.value.get());
    if (!v)
      continue;
    if (e.key == "num_bits") {
      if (auto i = config::integer_value(*v))
        a.num_bits = static_cast<int>(*i);
      else
        out.unreadable.push_back(v->range);
    } else if (e.key == "type" && config::is_string_value(*v)) {
      a.type = v->scalar;
    } else if (e.key == "strategy") {
      if (!config::is_null_value(v) && config::is_string_value(*v))
        a.strategy = v->scalar;
    } else if (e.key == "group_size") {
      if (config::is_null_value(v))
        a.group_size.reset();
      else if (auto i = config::integer_value(*v))
        a.group_size = *i;
      else
        out.unreadable.push_back(v->range);
    } else if (e.key == "symmetric") {
      if (auto b = config::boolean_value(*v))
        a.symmetric = *b;
    } else if (e.key == "dynamic") {
      if (auto b = config::boolean_value(*v))
        a.dynamic = *b ? "true" : "false";
      else if (config::is_string_value(*v))
        a.dynamic = v->scalar;
    } else if (e.key == "block_structure") {
      a.block_structure = !config::is_null_value(v);
      if (v->kind == Node::Kind::Seq)
        for (const auto& item : v->items)
          if (const Node* i = config::follow_aliases(item.get()))
            if (auto n = config::integer_value(*i))
              a.block.push_back(*n);
    } else if (e.key == "scale_dtype" && config::is_string_value(*v)) {
      a.scale_dtype = v->scalar;
    } else if (e.key == "actorder") {
      auto b = config::boolean_value(*v);
      a.actorder = !config::is_null_value(v) && !(b && !*b);
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
  n = config::follow_aliases(n);
  if (!n || config::is_null_value(n))
    return;
  if (n->kind != Node::Kind::Map) {
    out.unreadable.push_back(n->range);
    return;
  }
  out.config_groups_set = true;
  for (const config::Entry& e : n->entries) {
    const Node* g = config::follow_aliases(e.value.get());
    if (!g || g->kind != Node::Kind::Map) {
      out.unreadable.push_back(e.value ? e.value->range : e.key_range);
      continue;
    }
    ConfigGroup group;
    group.name = {e.key, e.key_range};
    group.range = g->range;
    group.targets = strings(find(*g, "targets"), out);
    group.args = scheme_args(*g, out);
    if (const Node* f = config::follow_aliases(find(*g, "format"));
        f && config::is_string_value(*f))
      group.format = Written{f->scalar, f->range};
    out.config_groups.push_back(std::move(group));
  }
}

void scheme(const Node* n, Modifier& out) {
  n = config::follow_aliases(n);
  if (!n || config::is_null_value(n))
    return;
  if (config::is_string_value(*n)) {
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
  n = config::follow_aliases(n);
  if (!n || config::is_null_value(n))
    return;
  if (n->kind != Node::Kind::Seq) {
    out.unreadable.push_back(n->range);
    return;
  }
  for (const auto& item : n->items) {
    const Node* m = config::follow_aliases(item.get());
    if (!m)
      continue;
    Mapping mapping;
    mapping.range = m->range;
    if (m->kind == Node::Kind::Seq && m->items.size() == 2) {
      mapping.balance = strings(m->items[0].get(), out);
      if (const Node* s = config::follow_aliases(m->items[1].get());
          s && config::is_string_value(*s))
        mapping.smooth = Written{s->scalar, s->range};
      else
        out.unreadable.push_back(m->items[1] ? m->items[1]->range : m->range);
    } else if (m->kind == Node::Kind::Map) {
      mapping.balance = strings(find(*m, "balance_layers"), out);
      if (const Node* s = config::follow_aliases(find(*m, "smooth_layer"));
          s && config::is_string_value(*s))
        mapping.smooth = Written{s->scalar, s->range};
    } else {
      out.unreadable.push_back(m->range);
      continue;
    }
    out.mappings.push_back(std::move(mapping));
  }
}

} // namespace

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
  if (const Node* t = find(map, "targets");
      t && !config::is_null_value(config::follow_aliases(t))) {
    out.targets_set = true;
    out.targets = strings(t, out);
  }
  out.ignore = strings(find(map, "ignore"), out);
  scheme(find(map, "scheme"), out);
  config_groups(find(map, "config_groups"), out);
  mappings(find(map, "mappings"), out);
  out.kv_cache_scheme =
      !config::is_null_value(config::follow_aliases(find(map, "kv_cache_scheme")));
  if (const Node* b = config::follow_aliases(find(map, "bypass_divisibility_checks")))
    out.bypass_divisibility_checks = config::boolean_value(*b).value_or(false);
  if (map.partial)
    out.unreadable.push_back(map.range);
}

void read_checkpoint(const Node& map, Modifier& out) {
  out.ignore = strings(find(map, "ignore"), out);
  config_groups(find(map, "config_groups"), out);
  if (const Node* f = config::follow_aliases(find(map, "format")); f && config::is_string_value(*f))
    out.format = Written{f->scalar, f->range};
}

} // namespace opscope::dialects::llmcompressor::detail
