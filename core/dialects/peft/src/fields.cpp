#include "fields.h"

#include "opscope/config/scalar_values.h"

namespace opscope::dialects::peft::detail {
namespace {

using config::Node;
using config::ScalarType;

Written written(const Node& n) {
  return {n.scalar, n.range};
}

// A list of strings (a lone string where `lone_string_is_list`): each item, or unreadable.
std::vector<Written> strings(const Node& n, PeftConfig& out) {
  std::vector<Written> items;
  if (n.kind == Node::Kind::Seq) {
    for (const auto& item : n.items) {
      const Node* i = config::follow_aliases(item.get());
      if (i && config::is_string_value(*i))
        items.push_back(written(*i));
      else if (i)
        out.unreadable.push_back(i->range);
    }
  } else if (config::is_string_value(n)) {
    items.push_back(written(n));
  } else {
    out.unreadable.push_back(n.range);
  }
  return items;
}

// "q_proj, v_proj" -> each name with its own range (on the value's first line).
std::vector<Written> comma_list(const Node& n) {
  std::vector<Written> items;
  bool one_line = n.range.start.line == n.range.end.line;
  int first_col = n.range.start.byte_col;
  if (n.quoted && one_line &&
      n.range.end.byte_col - first_col >= static_cast<int>(n.scalar.size()) + 2)
    ++first_col;
  std::size_t at = 0;
  while (at <= n.scalar.size()) {
    std::size_t comma = n.scalar.find(',', at);
    if (comma == std::string::npos)
      comma = n.scalar.size();
    std::size_t b = at, e = comma;
    while (b < e && (n.scalar[b] == ' ' || n.scalar[b] == '\t'))
      ++b;
    while (e > b && (n.scalar[e - 1] == ' ' || n.scalar[e - 1] == '\t'))
      --e;
    if (e > b) {
      Written w{n.scalar.substr(b, e - b), n.range};
      if (one_line) {
        w.range.start.byte_col = first_col + static_cast<int>(b);
        w.range.end = w.range.start;
        w.range.end.byte_col += static_cast<int>(e - b);
      }
      items.push_back(std::move(w));
    }
    at = comma + 1;
  }
  return items;
}

bool is_all_linear(std::string_view s) {
  if (s.size() != 10)
    return false;
  constexpr std::string_view kAllLinear = "all-linear";
  for (std::size_t i = 0; i < s.size(); ++i)
    if (static_cast<char>(std::tolower(static_cast<unsigned char>(s[i]))) != kAllLinear[i])
      return false;
  return true;
}

void read_field(Field field, const Node& v, PeftConfig& out) {
  switch (field) {
  case Field::TargetModules:
    if (config::is_string_value(v)) {
      out.target_modules_set = true;
      if (is_all_linear(v.scalar))
        out.all_linear = written(v);
      else
        out.target_regex = written(v);
    } else if (v.kind == Node::Kind::Seq) {
      out.target_modules_set = true;
      out.target_names = strings(v, out);
    } else {
      out.unreadable.push_back(v.range);
      out.target_modules_set = true; // written, unknown: never the default
    }
    return;
  case Field::TargetModulesCommaList:
    if (!config::is_string_value(v)) {
      out.unreadable.push_back(v.range);
      return;
    }
    out.target_modules_set = true;
    for (Written& w : comma_list(v)) {
      if (w.text == "all")
        out.all_linear = std::move(w);
      else
        out.target_names.push_back(std::move(w));
    }
    if (out.all_linear) // LLaMA-Factory: `all` replaces the list
      out.target_names.clear();
    return;
  case Field::TargetLinear:
    if (auto b = config::boolean_value(v); b && *b) {
      out.target_modules_set = true;
      out.all_linear = Written{"all-linear", v.range};
    }
    return;
  case Field::ExcludeModules:
    if (config::is_string_value(v))
      out.exclude_regex = written(v);
    else
      out.exclude_names = strings(v, out);
    return;
  case Field::LayersToTransform:
    if (auto i = config::integer_value(v)) {
      out.layers_to_transform.push_back({static_cast<int>(*i), v.range});
    } else if (v.kind == Node::Kind::Seq) {
      for (const auto& item : v.items) {
        const Node* n = config::follow_aliases(item.get());
        if (auto j = n ? config::integer_value(*n) : std::nullopt)
          out.layers_to_transform.push_back({static_cast<int>(*j), n->range});
        else if (n)
          out.unreadable.push_back(n->range);
      }
    } else {
      out.unreadable.push_back(v.range);
    }
    return;
  case Field::LayersPattern:
    out.layers_pattern = strings(v, out);
    return;
  case Field::Rank:
    if (auto i = config::integer_value(v))
      out.r = static_cast<int>(*i);
    else
      out.unreadable.push_back(v.range);
    return;
  case Field::Alpha:
    if (auto d = config::number_value(v))
      out.lora_alpha = *d;
    else
      out.unreadable.push_back(v.range);
    return;
  case Field::RankPattern:
  case Field::AlphaPattern:
    if (v.kind != Node::Kind::Map) {
      out.unreadable.push_back(v.range);
      return;
    }
    if (v.partial)
      out.unreadable.push_back(v.range);
    for (const config::Entry& e : v.entries) {
      const Node* value = config::follow_aliases(e.value.get());
      Written key{e.key, e.key_range};
      if (field == Field::RankPattern) {
        if (auto i = value ? config::integer_value(*value) : std::nullopt)
          out.rank_pattern.push_back({std::move(key), static_cast<int>(*i)});
        else
          out.unreadable.push_back(value ? value->range : e.key_range);
      } else {
        if (auto d = value ? config::number_value(*value) : std::nullopt)
          out.alpha_pattern.push_back({std::move(key), *d});
        else
          out.unreadable.push_back(value ? value->range : e.key_range);
      }
    }
    return;
  case Field::ModulesToSave:
    out.modules_to_save = strings(v, out);
    return;
  case Field::ModulesToSaveCommaList:
    if (config::is_string_value(v))
      out.modules_to_save = comma_list(v);
    else
      out.unreadable.push_back(v.range);
    return;
  case Field::TargetParameters:
    out.target_parameters = strings(v, out);
    return;
  case Field::TaskType:
    if (config::is_string_value(v))
      out.task_type = written(v);
    return;
  case Field::UseDora:
    if (auto b = config::boolean_value(v))
      out.use_dora = *b;
    return;
  case Field::BaseModel:
    if (config::is_string_value(v) && !v.scalar.empty())
      out.base_model = written(v);
    return;
  }
}

} // namespace

const Node* find(const Node& map, std::string_view key) {
  const Node* found = nullptr;
  for (const config::Entry& e : map.entries)
    if (e.key == key)
      found = e.value ? config::follow_aliases(e.value.get()) : &map; // `key:` alone: present, null
  return found;
}

bool scalar_is(const Node& map, std::string_view key,
               std::initializer_list<std::string_view> values) {
  const Node* v = find(map, key);
  if (!v || v == &map || v->kind != Node::Kind::Scalar)
    return false;
  for (std::string_view value : values)
    if (v->scalar == value)
      return true;
  return false;
}

void read_fields(const Node& map, std::span<const FieldKey> fields, PeftConfig& out) {
  for (const config::Entry& e : map.entries) {
    for (const FieldKey& f : fields) {
      if (e.key != f.key)
        continue;
      const Node* v = config::follow_aliases(e.value.get());
      if (config::is_null_value(v))
        break; // None: PEFT's default
      read_field(f.field, *v, out);
      break;
    }
  }
}

std::vector<Written> keys_written(const Node& map) {
  std::vector<Written> out;
  for (const config::Entry& e : map.entries)
    out.push_back({e.key, e.key_range});
  return out;
}

} // namespace opscope::dialects::peft::detail
