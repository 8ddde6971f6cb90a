#include "opscope/propose/config_edit.h"

#include "opscope/coreai/config/values.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace opscope::propose {
namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size() - 1;
    lines.push_back(text.substr(start, end - start + 1));
    start = end + 1;
  }
  return lines;
}

std::size_t indent_of(const std::string& line) {
  return line.find_first_not_of(' ');
}

// Blank or a comment: never ends a block.
bool no_content(const std::string& line) {
  const std::size_t first = line.find_first_not_of(" \t\r\n");
  return first == std::string::npos || line[first] == '#';
}

// The value after `key:` on its line, comment and blanks removed.
std::string rest_after_colon(const std::string& line) {
  std::string rest = line.substr(line.find(':') + 1);
  if (const std::size_t hash = rest.find(" #"); hash != std::string::npos)
    rest.erase(hash);
  const std::size_t a = rest.find_first_not_of(" \t\r\n");
  if (a == std::string::npos)
    return "";
  return rest.substr(a, rest.find_last_not_of(" \t\r\n") - a + 1);
}

// The first line after `from` with content and an indent <= `indent`, else the end.
std::size_t block_end(const std::vector<std::string>& lines, std::size_t from, std::size_t indent) {
  std::size_t last_content = from;
  for (std::size_t i = from + 1; i < lines.size(); ++i) {
    if (no_content(lines[i]))
      continue;
    if (indent_of(lines[i]) <= indent)
      break;
    last_content = i;
  }
  return last_content + 1; // after the block's last line with content
}

// YAML flow style, as a person writes it: {dtype: int4, granularity: {type: per_channel}}.
// A string stays plain when YAML reads it back as that string, else it is quoted as JSON.
std::string flow(const nlohmann::ordered_json& value) {
  if (value.is_object()) {
    std::string out = "{";
    for (auto it = value.begin(); it != value.end(); ++it)
      out += (it == value.begin() ? "" : ", ") + flow(it.key()) + ": " + flow(it.value());
    return out + "}";
  }
  if (value.is_array()) {
    std::string out = "[";
    for (std::size_t i = 0; i < value.size(); ++i)
      out += (i ? ", " : "") + flow(value[i]);
    return out + "]";
  }
  if (value.is_string()) {
    const std::string& s = value.get_ref<const std::string&>();
    static const std::vector<std::string> kReserved = {
        "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE", "yes", "Yes",
        "no",   "No",   "on",   "On",   "off",  "Off",  "y",     "n",     "Y",     "N",   "~"};
    bool plain = !s.empty() && (std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_') &&
                 std::find(kReserved.begin(), kReserved.end(), s) == kReserved.end();
    for (char c : s)
      plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.');
    return plain ? s : value.dump();
  }
  return value.dump();
}

std::string entry_lines(const std::vector<ProposedEntry>& entries, std::size_t indent) {
  std::string out;
  for (const ProposedEntry& e : entries)
    out += std::string(indent, ' ') + nlohmann::json(exact_pattern(e.module)).dump() + ": " +
           flow(e.value) + "\n";
  return out;
}

std::string yaml_with_entries(const config::ConfigDocument& document,
                              const std::vector<ProposedEntry>& entries) {
  std::vector<std::string> lines = split_lines(document.text);
  if (!lines.empty() && lines.back().back() != '\n')
    lines.back() += '\n';
  const auto root = static_cast<std::size_t>(document.root_range.start.line);
  if (root >= lines.size() || !rest_after_colon(lines[root]).empty())
    throw EditError("quantization_config is not written as a block mapping; propose appends "
                    "to block-style YAML (or JSON)");
  const std::size_t root_indent = indent_of(lines[root]);
  const std::size_t end = block_end(lines, root, root_indent);
  std::size_t child = root_indent + 2;
  for (std::size_t i = root + 1; i < end; ++i)
    if (!no_content(lines[i])) {
      child = indent_of(lines[i]);
      break;
    }
  for (std::size_t i = root + 1; i < end; ++i) {
    if (no_content(lines[i]) || indent_of(lines[i]) != child)
      continue;
    const std::string_view key = std::string_view(lines[i]).substr(child);
    if (key.rfind("module_name_configs", 0) != 0 ||
        key.substr(19).find_first_not_of(' ') == std::string_view::npos ||
        key.substr(19)[key.substr(19).find_first_not_of(' ')] != ':')
      continue;
    const std::string value = rest_after_colon(lines[i]);
    if (value == "null" || value == "~" || value == "{}" || value == "Null" || value == "NULL") {
      lines[i] = std::string(child, ' ') + "module_name_configs:\n";
    } else if (!value.empty()) {
      throw EditError("module_name_configs is written in flow style on line " +
                      std::to_string(i + 1) +
                      "; write it as a block mapping so propose can append to it");
    }
    const std::size_t block = block_end(lines, i, child);
    std::size_t indent = child + 2;
    for (std::size_t j = i + 1; j < block; ++j)
      if (!no_content(lines[j])) {
        indent = indent_of(lines[j]);
        break;
      }
    lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(block), entry_lines(entries, indent));
    std::string out;
    for (const std::string& l : lines)
      out += l;
    return out;
  }
  // A key spelled otherwise (quoted, an alias): a second table would replace the user's.
  for (std::size_t i = root + 1; i < end; ++i)
    if (lines[i].find("module_name_configs") != std::string::npos)
      throw EditError("line " + std::to_string(i + 1) +
                      " names module_name_configs in a way propose does not edit; write it as "
                      "a plain block key (`module_name_configs:`)");
  lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(end),
               std::string(child, ' ') + "module_name_configs:\n" +
                   entry_lines(entries, child + 2));
  std::string out;
  for (const std::string& l : lines)
    out += l;
  return out;
}

std::string json_with_entries(const config::ConfigDocument& document,
                              const std::vector<ProposedEntry>& entries) {
  std::optional<nlohmann::ordered_json> values = config::read_values(document);
  if (!values || !values->contains("quantization_config") ||
      !(*values)["quantization_config"].is_object())
    throw EditError("no quantization_config object to add entries to");
  nlohmann::ordered_json& root = (*values)["quantization_config"];
  if (!root.contains("module_name_configs") || !root["module_name_configs"].is_object())
    root["module_name_configs"] = nlohmann::ordered_json::object();
  nlohmann::ordered_json& table = root["module_name_configs"];
  for (const ProposedEntry& e : entries) {
    const std::string key = exact_pattern(e.module);
    table.erase(key); // appended below: the last entry wins
    table[key] = e.value;
  }
  return values->dump(2) + "\n";
}

} // namespace

std::string exact_pattern(const std::string& module) {
  static constexpr std::string_view kSpecial = R"(.^$*+?()[]{}|\)";
  std::string out;
  for (char c : module) {
    if (kSpecial.find(c) != std::string_view::npos)
      out += '\\';
    out += c;
  }
  return out;
}

std::string with_entries(const config::ConfigDocument& document,
                         const std::vector<ProposedEntry>& entries) {
  switch (document.format) {
  case config::Format::Json:
    return json_with_entries(document, entries);
  case config::Format::Yaml:
    return yaml_with_entries(document, entries);
  case config::Format::Python:
    break;
  }
  throw EditError("propose writes YAML and JSON configs; a Python file's config calls are "
                  "not rewritten (dump it with QuantizerConfig.to_dict() to a .yaml first)");
}

bool can_append(const config::ConfigDocument& document) {
  try {
    with_entries(document, {});
    return true;
  } catch (const EditError&) {
    return false;
  }
}

namespace {

// How many lines `a` and `b` share at their start and, after that, at their end.
std::pair<std::size_t, std::size_t> common_head_and_tail(const std::vector<std::string>& a,
                                                         const std::vector<std::string>& b) {
  std::size_t head = 0;
  while (head < a.size() && head < b.size() && a[head] == b[head])
    ++head;
  std::size_t tail = 0;
  while (tail < a.size() - head && tail < b.size() - head &&
         a[a.size() - 1 - tail] == b[b.size() - 1 - tail])
    ++tail;
  return {head, tail};
}

} // namespace

LineChange changed_lines(const std::string& before, const std::string& after) {
  const std::vector<std::string> a = split_lines(before), b = split_lines(after);
  const auto [head, tail] = common_head_and_tail(a, b);
  LineChange change;
  change.replaced = {{static_cast<int>(head), 0}, {static_cast<int>(a.size() - tail), 0}};
  for (std::size_t i = head; i < b.size() - tail; ++i)
    change.text += b[i];
  return change;
}

std::string unified_diff(const std::string& before, const std::string& after,
                         const std::string& path) {
  if (before == after)
    return "";
  const std::vector<std::string> a = split_lines(before), b = split_lines(after);
  const auto [head, tail] = common_head_and_tail(a, b);
  constexpr std::size_t kContext = 3;
  const std::size_t from = head > kContext ? head - kContext : 0;
  const std::size_t a_end = std::min(a.size(), a.size() - tail + kContext);
  const std::size_t b_end = std::min(b.size(), b.size() - tail + kContext);
  auto range = [](std::size_t start, std::size_t count) {
    return std::to_string(count == 0 ? start : start + 1) + "," + std::to_string(count);
  };
  std::string out = "--- " + path + "\n+++ " + path + " (proposed)\n@@ -" +
                    range(from, a_end - from) + " +" + range(from, b_end - from) + " @@\n";
  auto line = [&](char mark, const std::string& text) {
    out += mark + text;
    if (text.empty() || text.back() != '\n')
      out += "\n\\ No newline at end of file\n";
  };
  for (std::size_t i = from; i < head; ++i)
    line(' ', a[i]);
  for (std::size_t i = head; i < a.size() - tail; ++i)
    line('-', a[i]);
  for (std::size_t i = head; i < b.size() - tail; ++i)
    line('+', b[i]);
  for (std::size_t i = a.size() - tail; i < a_end; ++i)
    line(' ', a[i]);
  return out;
}

} // namespace opscope::propose
