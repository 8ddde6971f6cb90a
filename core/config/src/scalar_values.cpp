#include "opscope/config/scalar_values.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string_view>

namespace opscope::config {

const Node* follow_aliases(const Node* n) {
  for (int hops = 0; n && n->kind == Node::Kind::Alias && hops < 64; ++hops)
    n = n->target;
  return n && n->kind == Node::Kind::Alias ? nullptr : n;
}

bool is_null_value(const Node* n) {
  if (!n || n->kind == Node::Kind::Null)
    return true;
  if (n->kind != Node::Kind::Scalar || n->quoted)
    return false;
  return n->scalar == "null" || n->scalar == "~" || n->scalar == "None" || n->scalar.empty();
}

bool is_string_value(const Node& n) {
  return n.kind == Node::Kind::Scalar && n.type != ScalarType::Expression &&
         n.type != ScalarType::Int && n.type != ScalarType::Float && n.type != ScalarType::Bool;
}

std::optional<long long> integer_value(const Node& n) {
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

std::optional<double> number_value(const Node& n) {
  if (auto i = integer_value(n))
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

std::optional<bool> boolean_value(const Node& n) {
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

} // namespace opscope::config
