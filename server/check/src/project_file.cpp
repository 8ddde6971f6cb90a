#include "project_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace opscope::check {
namespace {

std::string trim(std::string s) {
  auto b = s.find_first_not_of(" \t\r");
  auto e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::string strip_comment(const std::string& s) {
  char quote = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (quote) {
      if (s[i] == quote)
        quote = 0;
    } else if (s[i] == '"' || s[i] == '\'') {
      quote = s[i];
    } else if (s[i] == '#' && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t')) {
      return s.substr(0, i);
    }
  }
  return s;
}

std::string unquote(std::string s) {
  s = trim(s);
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front())
    return s.substr(1, s.size() - 2);
  return s;
}

std::vector<std::string> flow_list(const std::string& s) {
  std::vector<std::string> out;
  std::string inner = trim(s);
  inner = inner.substr(1, inner.size() >= 2 && inner.back() == ']' ? inner.size() - 2 : 1);
  std::stringstream in(inner);
  std::string item;
  while (std::getline(in, item, ','))
    if (!trim(item).empty())
      out.push_back(unquote(item));
  return out;
}

} // namespace

ProjectFile parse_project(const std::string& text, const std::string& path) {
  ProjectFile project;
  project.path = path;
  project.dir = fs::path(path).parent_path().string();
  std::istringstream in(text);
  std::string raw;
  std::string list_key;
  while (std::getline(in, raw)) {
    std::string line = strip_comment(raw);
    if (trim(line).empty())
      continue;
    bool indented = line[0] == ' ' || line[0] == '\t';
    std::string content = trim(line);
    if (indented || content.rfind("- ", 0) == 0) {
      if (list_key == "inputs" && content.rfind("- ", 0) == 0)
        project.inputs.push_back(unquote(content.substr(2)));
      continue;
    }
    auto colon = content.find(':');
    if (colon == std::string::npos)
      continue;
    std::string key = trim(content.substr(0, colon));
    std::string value = trim(content.substr(colon + 1));
    list_key = key;
    if (key == "inputs") {
      if (!value.empty() && value.front() == '[')
        project.inputs = flow_list(value);
      else if (!value.empty())
        project.inputs = {unquote(value)};
      continue;
    }
    if (value.empty())
      continue;
    if (key == "model")
      project.model = unquote(value);
    else if (key == "python")
      project.python = unquote(value);
    else if (key == "mode")
      project.mode = unquote(value);
    else if (key == "compressor")
      project.compressor = unquote(value);
  }
  return project;
}

std::optional<ProjectFile> find_project(const std::string& dir) {
  std::error_code ec;
  fs::path d = fs::absolute(dir, ec).lexically_normal();
  while (!d.empty()) {
    fs::path candidate = d / "opscope.yaml";
    if (fs::is_regular_file(candidate, ec)) {
      std::ifstream file(candidate);
      std::stringstream text;
      text << file.rdbuf();
      return parse_project(text.str(), candidate.string());
    }
    if (d == d.root_path())
      break;
    d = d.parent_path();
  }
  return std::nullopt;
}

} // namespace opscope::check
