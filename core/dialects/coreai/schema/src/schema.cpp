#include "opscope/schema/schema.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace opscope::schema {
namespace {

using nlohmann::json;

constexpr const char* kFormat = "opscope-coreai-schema/1";
constexpr std::size_t kMaxChildren = 10'000; // fields, options, values: far above any model

// nlohmann's parser recurses per level: the depth is checked on the text first.
bool too_deep(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxDumpNesting)
        return true;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return false;
}

struct Bad : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const json& member(const json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key))
    throw Bad(where + ": missing `" + key + "`");
  return j.at(key);
}

std::string str(const json& j, const std::string& where) {
  if (!j.is_string())
    throw Bad(where + ": expected a string");
  return j.get<std::string>();
}

std::string opt_str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

void check_size(const json& j, const std::string& where) {
  if (j.size() > kMaxChildren)
    throw Bad(where + ": more than " + std::to_string(kMaxChildren) + " entries");
}

Value value_of(const json& j, const std::string& where) {
  Value v;
  if (j.is_null()) {
    v.kind = Value::Kind::Null;
  } else if (j.is_boolean()) {
    v.kind = Value::Kind::Bool;
    v.b = j.get<bool>();
  } else if (j.is_number_integer()) {
    v.kind = Value::Kind::Int;
    v.i = j.is_number_unsigned() ? static_cast<long long>(j.get<unsigned long long>())
                                 : j.get<long long>();
  } else if (j.is_number()) {
    v.kind = Value::Kind::Float;
    v.f = j.get<double>();
  } else if (j.is_string()) {
    v.kind = Value::Kind::Str;
    v.s = j.get<std::string>();
  } else {
    throw Bad(where + ": a literal must be null, a boolean, a number or a string");
  }
  return v;
}

std::vector<std::string> strings(const json& j, const std::string& where) {
  std::vector<std::string> out;
  if (!j.is_array())
    throw Bad(where + ": expected a list");
  check_size(j, where);
  for (const json& s : j)
    if (s.is_string())
      out.push_back(s.get<std::string>());
  return out;
}

Type type_of(const json& j, const std::string& where) {
  static const std::pair<const char*, Type::Kind> kKinds[] = {
      {"any", Type::Kind::Any},     {"null", Type::Kind::Null},        {"bool", Type::Kind::Bool},
      {"int", Type::Kind::Int},     {"float", Type::Kind::Float},      {"str", Type::Kind::Str},
      {"enum", Type::Kind::Enum},   {"literal", Type::Kind::Literal},  {"model", Type::Kind::Model},
      {"dict", Type::Kind::Dict},   {"list", Type::Kind::List},        {"tuple", Type::Kind::Tuple},
      {"union", Type::Kind::Union}, {"registry", Type::Kind::Registry}};
  std::string kind = str(member(j, "kind", where), where + ".kind");
  Type t;
  auto k = std::find_if(std::begin(kKinds), std::end(kKinds),
                        [&](const auto& p) { return kind == p.first; });
  if (k == std::end(kKinds))
    return t; // a kind a newer dump adds: accept anything there rather than refuse the dump
  t.kind = k->second;
  for (auto [key, slot] : {std::pair{"ge", &t.ge}, {"gt", &t.gt}, {"le", &t.le}, {"lt", &t.lt}})
    if (auto it = j.find(key); it != j.end() && it->is_number())
      *slot = it->get<double>();
  t.digit_keys = j.value("digit_keys", false);
  t.none_ok = j.value("none_ok", false);
  switch (t.kind) {
  case Type::Kind::Enum:
    t.name = opt_str(j, "name");
    t.values = strings(member(j, "values", where), where + ".values");
    if (j.contains("aliases"))
      t.aliases = strings(j.at("aliases"), where + ".aliases");
    if (j.contains("stateless"))
      t.stateless = strings(j.at("stateless"), where + ".stateless");
    break;
  case Type::Kind::Literal: {
    const json& values = member(j, "values", where);
    if (!values.is_array())
      throw Bad(where + ".values: expected a list");
    check_size(values, where);
    for (const json& v : values)
      t.literals.push_back(value_of(v, where + ".values"));
    break;
  }
  case Type::Kind::Model:
    t.name = str(member(j, "model", where), where + ".model");
    break;
  case Type::Kind::Dict:
    t.children.push_back(type_of(member(j, "key", where), where + ".key"));
    t.children.push_back(type_of(member(j, "value", where), where + ".value"));
    break;
  case Type::Kind::List:
    t.children.push_back(type_of(member(j, "item", where), where + ".item"));
    break;
  case Type::Kind::Tuple:
  case Type::Kind::Union: {
    const json& items = member(j, t.kind == Type::Kind::Tuple ? "items" : "options", where);
    if (!items.is_array())
      throw Bad(where + ": expected a list of types");
    check_size(items, where);
    for (std::size_t i = 0; i < items.size(); ++i)
      t.children.push_back(type_of(items[i], where + "[" + std::to_string(i) + "]"));
    break;
  }
  case Type::Kind::Registry: {
    t.name = opt_str(j, "base");
    const json& options = member(j, "options", where);
    if (!options.is_object())
      throw Bad(where + ".options: expected an object");
    check_size(options, where);
    for (const auto& [key, model] : options.items())
      t.registry.emplace_back(key, str(model, where + ".options." + key));
    break;
  }
  default:
    break;
  }
  return t;
}

Model model_of(const std::string& name, const json& j) {
  std::string where = "models." + name;
  Model m;
  m.name = name;
  m.doc = opt_str(j, "doc");
  m.forbid = j.value("forbid", false);
  m.strip_unknown = j.value("strip_unknown", false);
  if (j.contains("bases"))
    m.bases = strings(j.at("bases"), where + ".bases");
  if (j.contains("validators"))
    m.validators = strings(j.at("validators"), where + ".validators");
  const json& fields = member(j, "fields", where);
  if (!fields.is_array())
    throw Bad(where + ".fields: expected a list");
  check_size(fields, where);
  for (const json& f : fields) {
    Field field;
    field.name = str(member(f, "name", where), where + ".name");
    std::string fw = where + "." + field.name;
    field.type = type_of(member(f, "type", fw), fw + ".type");
    field.required = f.value("required", false);
    if (auto it = f.find("default"); it != f.end())
      field.default_text = it->dump();
    field.doc = opt_str(f, "doc");
    m.fields.push_back(std::move(field));
  }
  return m;
}

} // namespace

std::string Value::text() const {
  switch (kind) {
  case Kind::Null:
    return "null";
  case Kind::Bool:
    return b ? "true" : "false";
  case Kind::Int:
    return std::to_string(i);
  case Kind::Float:
    return json(f).dump();
  case Kind::Str:
    return s;
  }
  return {};
}

bool Type::accepts_enum(std::string_view s) const {
  return std::find(values.begin(), values.end(), s) != values.end() ||
         std::find(aliases.begin(), aliases.end(), s) != aliases.end();
}

const Field* Model::field(std::string_view name) const {
  for (const Field& f : fields)
    if (f.name == name)
      return &f;
  return nullptr;
}

bool Model::is_a(std::string_view base) const {
  return name == base || std::find(bases.begin(), bases.end(), base) != bases.end();
}

const Model* Schema::model(std::string_view name) const {
  auto it = models.find(name);
  return it == models.end() ? nullptr : &it->second;
}

const Root* Schema::root(std::string_view config_key) const {
  for (const Root& r : roots)
    if (r.config_key == config_key)
      return &r;
  return nullptr;
}

std::variant<std::shared_ptr<const Schema>, std::string> parse(std::string_view text) {
  if (text.size() > kMaxDumpBytes)
    return "the schema dump is larger than " + std::to_string(kMaxDumpBytes / (1024 * 1024)) +
           " MB; it is not one opscope wrote (delete it: it is rebuilt)";
  if (too_deep(text))
    return "the schema dump nests deeper than " + std::to_string(kMaxDumpNesting) +
           " levels; it is not one opscope wrote (delete it: it is rebuilt)";
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    return std::string("the schema dump is not valid JSON (delete it: it is rebuilt)");
  try {
    if (!j.is_object() || j.value("format", std::string()) != kFormat)
      throw Bad(std::string("`format` is not ") + kFormat);
    auto schema = std::make_shared<Schema>();
    schema->coreai_opt_version = str(member(j, "coreai_opt", "the dump"), "coreai_opt");
    const json& models = member(j, "models", "the dump");
    if (!models.is_object())
      throw Bad("models: expected an object");
    check_size(models, "models");
    for (const auto& [name, m] : models.items())
      schema->models.emplace(name, model_of(name, m));
    const json& roots = member(j, "roots", "the dump");
    if (!roots.is_object())
      throw Bad("roots: expected an object");
    for (const auto& [key, r] : roots.items()) {
      Root root{key, str(member(r, "model", "roots." + key), "roots." + key + ".model"),
                opt_str(r, "spec_key")};
      if (!schema->model(root.model))
        throw Bad("roots." + key + ": model `" + root.model + "` is not in `models`");
      schema->roots.push_back(std::move(root));
    }
    if (auto it = j.find("dtypes"); it != j.end() && it->is_object()) {
      check_size(*it, "dtypes");
      for (const auto& [name, d] : it->items())
        if (d.is_object())
          schema->dtypes[name] = {d.value("floating", false), opt_str(d, "canonical"),
                                  d.value("e8m0_scale", false), d.value("lut", false)};
    }
    return std::shared_ptr<const Schema>(std::move(schema));
  } catch (const Bad& e) {
    return std::string("the schema dump is malformed: ") + e.what();
  } catch (const json::exception& e) {
    return std::string("the schema dump is malformed: ") + e.what();
  }
}

} // namespace opscope::schema
