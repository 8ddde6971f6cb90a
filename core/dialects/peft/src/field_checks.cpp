// A PEFT config's keys against its class's fields (class_fields.h): what PEFT does with a key it
// does not take, and the hover on one it does.
#include "class_fields.h"
#include "opscope/dialects/peft/features.h"
#include "opscope/index/nearest.h"

#include <algorithm>

namespace opscope::dialects::peft {
namespace {

std::string quoted_for(const PeftConfig& config, const std::string& name) {
  // adapter_config.json's key ranges hold the quotes; a Python keyword has none.
  return config.source == Source::AdapterJson ? "\"" + name + "\"" : name;
}

} // namespace

std::vector<Diagnostic> diagnose_fields(const PeftConfig& config) {
  std::vector<Diagnostic> out;
  if (config.source != Source::PythonCall && config.source != Source::AdapterJson)
    return out; // the frameworks' YAML keys are theirs, not PEFT's
  const std::vector<detail::ClassField>* fields = detail::fields_of_class(config.class_name);
  if (!fields)
    return out;
  std::vector<std::string> names;
  names.reserve(fields->size());
  for (const detail::ClassField& f : *fields)
    names.push_back(f.name);
  for (const Written& key : config.keys) {
    if (std::find(names.begin(), names.end(), key.text) != names.end())
      continue;
    const std::vector<std::string> near = index::nearest_names(key.text, names);
    const bool python = config.source == Source::PythonCall;
    Diagnostic d;
    d.range = key.range;
    d.code = "unknown-field";
    d.severity = python ? Severity::Error : Severity::Warning;
    d.message = "`" + config.class_name + "` has no field `" + key.text + "`: " +
                (python ? "PEFT raises TypeError (unexpected keyword argument)"
                        : "PEFT ignores it, with a warning, when it loads this adapter");
    if (!near.empty())
      d.message += "; did you mean `" + near.front() + "`?";
    for (const std::string& name : near)
      d.fixes.push_back({"Replace with `" + name + "`", {key.range, quoted_for(config, name)}});
    out.push_back(std::move(d));
  }
  return out;
}

std::optional<Hover> field_hover(const PeftConfig& config, config::Position cursor) {
  if (config.source != Source::PythonCall && config.source != Source::AdapterJson)
    return std::nullopt;
  const std::vector<detail::ClassField>* fields = detail::fields_of_class(config.class_name);
  if (!fields)
    return std::nullopt;
  for (const Written& key : config.keys) {
    if (!key.range.contains(cursor))
      continue;
    for (const detail::ClassField& f : *fields)
      if (f.name == key.text)
        return Hover{"**" + f.name + "** `" + f.type + "` (" + config.class_name + ", PEFT " +
                         detail::fields_peft_version() + ")" +
                         (f.help.empty() ? "" : "\n\n" + f.help),
                     key.range};
    return std::nullopt;
  }
  return std::nullopt;
}

} // namespace opscope::dialects::peft
