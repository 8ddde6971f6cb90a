#include "scalars.h"

#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace opscope::schema {
namespace {

// PyYAML's implicit resolvers (resolver.py), YAML 1.1.
const RE2& yaml_bool() {
  static const RE2 re("yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF");
  return re;
}
const RE2& yaml_int() {
  static const RE2 re("[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|"
                      "[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+");
  return re;
}
const RE2& yaml_float() {
  static const RE2 re("[-+]?(?:[0-9][0-9_]*)\\.[0-9_]*(?:[eE][-+][0-9]+)?|"
                      "\\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|"
                      "[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\\.[0-9_]*|"
                      "[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN)");
  return re;
}

std::string without(std::string_view s, char c) {
  std::string out;
  for (char x : s)
    if (x != c)
      out += x;
  return out;
}

// Sexagesimal 1:30 = 90 (YAML 1.1).
double sexagesimal(const std::string& digits) {
  double value = 0;
  std::size_t start = 0;
  while (start <= digits.size()) {
    std::size_t colon = digits.find(':', start);
    std::string part = digits.substr(start, colon == std::string::npos ? colon : colon - start);
    value = value * 60 + std::strtod(part.c_str(), nullptr);
    if (colon == std::string::npos)
      break;
    start = colon + 1;
  }
  return value;
}

double yaml_int_value(const std::string& text) {
  std::string v = without(text, '_');
  double sign = 1;
  if (!v.empty() && (v[0] == '-' || v[0] == '+')) {
    sign = v[0] == '-' ? -1 : 1;
    v.erase(0, 1);
  }
  if (v == "0")
    return 0;
  if (v.rfind("0b", 0) == 0)
    return sign * static_cast<double>(std::strtoull(v.c_str() + 2, nullptr, 2));
  if (v.rfind("0x", 0) == 0)
    return sign * static_cast<double>(std::strtoull(v.c_str() + 2, nullptr, 16));
  if (v[0] == '0')
    return sign * static_cast<double>(std::strtoull(v.c_str() + 1, nullptr, 8));
  if (v.find(':') != std::string::npos)
    return sign * sexagesimal(v);
  return sign * std::strtod(v.c_str(), nullptr);
}

double yaml_float_value(const std::string& text) {
  std::string v = lower(without(text, '_'));
  double sign = 1;
  if (!v.empty() && (v[0] == '-' || v[0] == '+')) {
    sign = v[0] == '-' ? -1 : 1;
    v.erase(0, 1);
  }
  if (v == ".inf")
    return sign * std::numeric_limits<double>::infinity();
  if (v == ".nan")
    return std::numeric_limits<double>::quiet_NaN();
  if (v.find(':') != std::string::npos)
    return sign * sexagesimal(v);
  return sign * std::strtod(v.c_str(), nullptr);
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

// Python's numeric literal grammar for int()/float(): underscores only between digits.
bool underscores_ok(std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s[i] == '_' &&
        (i == 0 || i + 1 == s.size() || !std::isdigit(static_cast<unsigned char>(s[i - 1])) ||
         !std::isdigit(static_cast<unsigned char>(s[i + 1]))))
      return false;
  return true;
}

} // namespace

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string PyValue::type_name() const {
  switch (kind) {
  case Kind::Null:
    return "null";
  case Kind::Bool:
    return "a boolean";
  case Kind::Int:
    return "an integer";
  case Kind::Float:
    return "a number";
  case Kind::Str:
    return "a string";
  }
  return "a value";
}

PyValue yaml_scalar(const std::string& text, bool quoted) {
  if (quoted)
    return PyValue::string(text);
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL")
    return PyValue{PyValue::Kind::Null, 0, {}, text};
  // A YAML 1.1 bool, int or float starts with one of these: anything else (most keys and names)
  // is a string without three regex matches.
  if (std::string_view("+-.0123456789yYnNtTfFoO").find(text.front()) == std::string_view::npos)
    return PyValue::string(text);
  if (RE2::FullMatch(text, yaml_bool())) {
    char c = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
    bool yes = c == 'y' || c == 't' || lower(text) == "on";
    PyValue v = PyValue::boolean(yes);
    v.text = text;
    return v;
  }
  if (RE2::FullMatch(text, yaml_int()))
    return PyValue::integer(yaml_int_value(text), text);
  if (RE2::FullMatch(text, yaml_float()))
    return PyValue::floating(yaml_float_value(text), text);
  return PyValue::string(text);
}

PyValue json_scalar(const std::string& text, bool quoted) {
  if (quoted)
    return PyValue::string(text);
  if (text == "null" || text.empty())
    return PyValue{PyValue::Kind::Null, 0, {}, text};
  if (text == "true" || text == "false") {
    PyValue v = PyValue::boolean(text == "true");
    return v;
  }
  bool is_float = text.find_first_of(".eE") != std::string::npos;
  char* end = nullptr;
  double n = std::strtod(text.c_str(), &end);
  if (end && *end == '\0')
    return is_float ? PyValue::floating(n, text) : PyValue::integer(n, text);
  return PyValue::string(text); // not JSON; the reader reports it as a syntax problem
}

std::optional<double> parse_python_int_text(std::string_view raw) {
  std::string_view s = trim(raw);
  if (s.empty() || !underscores_ok(s))
    return std::nullopt;
  std::string v = without(s, '_');
  static const RE2 re("[-+]?[0-9]+(?:\\.0*)?");
  if (!RE2::FullMatch(v, re))
    return std::nullopt;
  return std::strtod(v.c_str(), nullptr);
}

std::optional<double> parse_python_float_text(std::string_view raw) {
  std::string_view s = trim(raw);
  if (s.empty() || !underscores_ok(s))
    return std::nullopt;
  std::string v = without(s, '_');
  static const RE2 re("[-+]?(?:(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][-+]?[0-9]+)?|"
                      "(?i:inf|infinity|nan))");
  if (!RE2::FullMatch(v, re))
    return std::nullopt;
  std::string l = lower(v);
  if (l.find("inf") != std::string::npos)
    return l[0] == '-' ? -std::numeric_limits<double>::infinity()
                       : std::numeric_limits<double>::infinity();
  if (l.find("nan") != std::string::npos)
    return std::numeric_limits<double>::quiet_NaN();
  return std::strtod(v.c_str(), nullptr);
}

} // namespace opscope::schema
