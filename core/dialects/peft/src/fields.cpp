#include "fields.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace opscope::dialects::peft::detail {
namespace {

using config::Node;
using config::ScalarType;

const Node* followed(const Node* n) {
  for (int hops = 0; n && n->kind == Node::Kind::Alias && hops < 64; ++hops)
    n = n->target;
  return n && n->kind == Node::Kind::Alias ? nullptr : n;
}

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

std::optional<double> number(const Node& n) {
  if (auto i = integer(n))
    return static_cast<double>(*i);
  if (n.kind != Node::Kind::Scalar || n.type == ScalarType::Expression ||
      n.type == ScalarType::Str || n.type == ScalarType::Bool || n.scalar.empty())
    return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(n.scalar.c_str(), &end);
  if (end != n.scalar.c_str() + n.scalar.size() || !std::isfinite(v))
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

Written written(const Node& n) {
  return {n.scalar, n.range};
}

// A list of strings (a lone string where `lone_string_is_list`): each item, or unreadable.
std::vector<Written> strings(const Node& n, PeftConfig& out) {
  std::vector<Written> items;
  if (n.kind == Node::Kind::Seq) {
    for (const auto& item : n.items) {
      const Node* i = followed(item.get());
      if (i && is_string(*i))
        items.push_back(written(*i));
      else if (i)
        out.unreadable.push_back(i->range);
    }
  } else if (is_string(n)) {
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
    if (is_string(v)) {
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
    if (!is_string(v)) {
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
    if (auto b = boolean(v); b && *b) {
      out.target_modules_set = true;
      out.all_linear = Written{"all-linear", v.range};
    }
    return;
  case Field::ExcludeModules:
    if (is_string(v))
      out.exclude_regex = written(v);
    else
      out.exclude_names = strings(v, out);
    return;
  case Field::LayersToTransform:
    if (auto i = integer(v)) {
      out.layers_to_transform.push_back({static_cast<int>(*i), v.range});
    } else if (v.kind == Node::Kind::Seq) {
      for (const auto& item : v.items) {
        const Node* n = followed(item.get());
        if (auto j = n ? integer(*n) : std::nullopt)
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
    if (auto i = integer(v))
      out.r = static_cast<int>(*i);
    else
      out.unreadable.push_back(v.range);
    return;
  case Field::Alpha:
    if (auto d = number(v))
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
      const Node* value = followed(e.value.get());
      Written key{e.key, e.key_range};
      if (field == Field::RankPattern) {
        if (auto i = value ? integer(*value) : std::nullopt)
          out.rank_pattern.push_back({std::move(key), static_cast<int>(*i)});
        else
          out.unreadable.push_back(value ? value->range : e.key_range);
      } else {
        if (auto d = value ? number(*value) : std::nullopt)
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
    if (is_string(v))
      out.modules_to_save = comma_list(v);
    else
      out.unreadable.push_back(v.range);
    return;
  case Field::TargetParameters:
    out.target_parameters = strings(v, out);
    return;
  case Field::TaskType:
    if (is_string(v))
      out.task_type = written(v);
    return;
  case Field::UseDora:
    if (auto b = boolean(v))
      out.use_dora = *b;
    return;
  case Field::BaseModel:
    if (is_string(v) && !v.scalar.empty())
      out.base_model = written(v);
    return;
  }
}

} // namespace

const Node* find(const Node& map, std::string_view key) {
  const Node* found = nullptr;
  for (const config::Entry& e : map.entries)
    if (e.key == key)
      found = e.value ? followed(e.value.get()) : &map; // `key:` alone: present, null
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
      const Node* v = followed(e.value.get());
      if (is_null(v))
        break; // None: PEFT's default
      read_field(f.field, *v, out);
      break;
    }
  }
}

} // namespace opscope::dialects::peft::detail
