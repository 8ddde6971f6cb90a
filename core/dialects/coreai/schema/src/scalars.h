// Scalars typed as PyYAML's safe loader (YAML 1.1) and json type them, and the numbers
// pydantic's lax mode reads from strings: what coreai-opt's models actually receive.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace opscope::schema {

struct PyValue {
  enum class Kind { Null, Bool, Int, Float, Str };
  Kind kind = Kind::Null;
  double number = 0; // Bool (0/1), Int, Float
  std::string s;     // Str
  std::string text;  // as written, for messages

  static PyValue boolean(bool b) { return {Kind::Bool, b ? 1.0 : 0.0, {}, b ? "true" : "false"}; }
  static PyValue integer(double n, std::string text) { return {Kind::Int, n, {}, std::move(text)}; }
  static PyValue floating(double n, std::string text) {
    return {Kind::Float, n, {}, std::move(text)};
  }
  static PyValue string(std::string s) { return {Kind::Str, 0, s, s}; }
  std::string type_name() const;
};

PyValue yaml_scalar(const std::string& text, bool quoted);
PyValue json_scalar(const std::string& text, bool quoted);

// int("…") / float("…") as pydantic accepts them from a string (whitespace, underscores).
std::optional<double> parse_python_int_text(std::string_view s);
std::optional<double> parse_python_float_text(std::string_view s);

std::string lower(std::string s);

} // namespace opscope::schema
