// A PEFT config's keys against its class's fields (class_fields.h): what PEFT does with a key it
// does not take, and the hover on one it does.
#include "class_fields.h"
#include "opscope/config/python_syntax.h"
#include "opscope/config/scanner.h"
#include "opscope/dialects/peft/features.h"
#include "opscope/index/nearest.h"

#include <algorithm>
#include <cctype>

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

std::vector<CompletionItem> complete_fields(const PeftConfig& config, std::string_view text,
                                            config::Position cursor) {
  if (config.source != Source::PythonCall || !config.call.contains(cursor) ||
      cursor == config.call.start || cursor == config.call.end)
    return {};
  const std::vector<detail::ClassField>* fields = detail::fields_of_class(config.class_name);
  if (!fields)
    return {};
  // Right inside the call's own parentheses: only its `)` is left to close (not a string, a list
  // or a dict opened in it).
  const config::detail::SourceText source(text);
  const std::size_t from = source.offset(config.call.start);
  const std::size_t to = source.offset(cursor);
  if (to < from || config::detail::closers(text.substr(from, to - from)) != ")")
    return {};
  const std::size_t line_start = source.line_start(static_cast<std::size_t>(cursor.line));
  const std::string_view line_before = text.substr(line_start, to - line_start);
  // The name being typed, then only blanks back to the `(` or `,` that opens an argument.
  std::size_t begin = line_before.size();
  while (begin > 0 && (std::isalnum(static_cast<unsigned char>(line_before[begin - 1])) ||
                       line_before[begin - 1] == '_'))
    --begin;
  std::size_t before = begin;
  while (before > 0 && (line_before[before - 1] == ' ' || line_before[before - 1] == '\t'))
    --before;
  const bool opens_argument =
      before == 0 // an argument on a line of its own
          ? cursor.line > config.call.start.line
          : line_before[before - 1] == '(' || line_before[before - 1] == ',';
  if (!opens_argument)
    return {};
  const std::string_view typed = line_before.substr(begin);
  if (!typed.empty() && std::isdigit(static_cast<unsigned char>(typed.front())))
    return {};
  std::vector<CompletionItem> out;
  for (const detail::ClassField& f : *fields) {
    const bool written = std::any_of(config.keys.begin(), config.keys.end(), [&](const Written& k) {
      return k.text == f.name && !k.range.contains(cursor);
    });
    if (written || f.name.rfind(typed, 0) != 0)
      continue;
    CompletionItem item;
    item.kind = CompletionItem::Kind::Field;
    item.label = f.name;
    item.filter_text = f.name;
    item.detail = f.type;
    item.documentation = f.help;
    item.sort_text = std::to_string(out.size() + 100000);
    item.edit = {{{cursor.line, static_cast<int>(begin)}, cursor}, f.name + "="};
    out.push_back(std::move(item));
  }
  return out;
}

} // namespace opscope::dialects::peft
