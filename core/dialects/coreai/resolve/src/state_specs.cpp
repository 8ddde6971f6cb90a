#include "state_specs.h"

#include <algorithm>
#include <iterator>

namespace opscope::resolve::detail {

using json = nlohmann::ordered_json;

json default_state_spec(index::Compressor c) {
  switch (c) {
  case index::Compressor::KMeansPalettizer:
    return {{"weight", {{"n_bits", 4}}}, {"in_proj_weight", {{"n_bits", 4}}}};
  case index::Compressor::Quantizer:
    return {
        {"weight", {{"dtype", "int8"}, {"granularity", {{"type", "per_channel"}, {"axis", 0}}}}}};
  case index::Compressor::MagnitudePruner: // OpMagnitudePrunerConfig.get_default_state_spec
    return {{"weight", {{"target_sparsity", 0.5}}}, {"in_proj_weight", {{"target_sparsity", 0.5}}}};
  default:
    return json::object();
  }
}

bool optimizable(const index::Parameter& p) {
  static const char* const kFloat[] = {"float64", "float32", "float16", "bfloat16"};
  return p.numel() > 1 && std::any_of(std::begin(kFloat), std::end(kFloat),
                                      [&](const char* d) { return p.dtype == d; });
}

json spec_dict(const json& config, const char* field, const json& fallback) {
  if (!config.is_object() || !config.contains(field))
    return fallback;
  const json& dict = config[field];
  if (dict.is_null())
    return json{{"*", nullptr}};
  return dict.is_object() ? dict : fallback;
}

std::optional<std::pair<std::string, json>> last_matching(const json& dict,
                                                          const std::vector<std::string>& names) {
  std::optional<std::pair<std::string, json>> found;
  for (const auto& [key, value] : dict.items())
    if (std::find(names.begin(), names.end(), key) != names.end())
      found = {key, value};
  if (!found && dict.contains("*"))
    found = {"*", dict["*"]};
  return found;
}

namespace {

// Whether `key` is the last component of `fqn`.
bool local_name_of(std::string_view key, std::string_view fqn) {
  const std::size_t dot = fqn.rfind('.');
  return (dot == std::string_view::npos ? fqn : fqn.substr(dot + 1)) == key;
}

} // namespace

std::optional<std::pair<std::string_view, const json*>> last_matching(const json& dict,
                                                                      const index::Parameter& p) {
  std::optional<std::pair<std::string_view, const json*>> found;
  for (auto it = dict.begin(); it != dict.end(); ++it) {
    const std::string& key = it.key();
    if (local_name_of(key, p.name) ||
        std::any_of(p.aliases.begin(), p.aliases.end(),
                    [&](const std::string& alias) { return local_name_of(key, alias); }))
      found = {std::string_view(key), &it.value()};
  }
  if (!found)
    if (auto star = dict.find("*"); star != dict.end())
      found = {std::string_view(star.key()), &star.value()};
  return found;
}

std::vector<std::string> local_names(const index::Parameter& p) {
  std::vector<std::string> names;
  auto add = [&](const std::string& fqn) {
    auto dot = fqn.rfind('.');
    std::string local = dot == std::string::npos ? fqn : fqn.substr(dot + 1);
    if (std::find(names.begin(), names.end(), local) == names.end())
      names.push_back(local);
  };
  add(p.name);
  for (const auto& alias : p.aliases)
    add(alias);
  return names;
}

json entry_config(const config::ConfigDocument& document, const json& values,
                  const Decider& decider) {
  if (decider.kind == Decider::Kind::DefaultGlobal)
    return json{{"op_state_spec", default_state_spec(document.root)}};
  const json* at = &values;
  for (const std::string& step : decider_path(document, decider)) {
    if (!at->is_object())
      return nullptr;
    auto it = at->find(step);
    if (it == at->end())
      return nullptr;
    at = &*it;
  }
  return *at;
}

} // namespace opscope::resolve::detail
