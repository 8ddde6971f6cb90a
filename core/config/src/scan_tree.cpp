#include "opscope/config/scanner.h"

#include <algorithm>
#include <cctype>

namespace opscope::config {

Tree scan_tree(std::string_view text, Format format) {
  detail::SourceText source(text);
  switch (format) {
  case Format::Json:
    return detail::scan_json(source);
  case Format::Yaml:
    return detail::scan_yaml(source);
  case Format::Python:
    break;
  }
  Tree empty;
  empty.root = std::make_unique<Node>();
  empty.root->kind = Node::Kind::Map;
  return empty;
}

Format guess_format(const std::string& path, const std::string& text) {
  auto ends_with = [&](const char* suffix) {
    std::string s(suffix);
    return path.size() >= s.size() &&
           std::equal(s.rbegin(), s.rend(), path.rbegin(), [](char a, char b) {
             return a == std::tolower(static_cast<unsigned char>(b));
           });
  };
  if (ends_with(".json"))
    return Format::Json;
  if (ends_with(".py"))
    return Format::Python;
  if (ends_with(".yaml") || ends_with(".yml"))
    return Format::Yaml;
  auto first = text.find_first_not_of(" \t\r\n");
  return first != std::string::npos && text[first] == '{' ? Format::Json : Format::Yaml;
}

} // namespace opscope::config
