#include "opscope/coreai/config/values.h"

#include "python_reader.h"

#include <cerrno>
#include <cstdlib>
#include <regex>

namespace opscope::config {
namespace {

using detail::Node;

// YAML 1.1 plain scalars as PyYAML's SafeLoader resolves them (the common spellings).
nlohmann::ordered_json plain_scalar(const std::string& text, bool yaml) {
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL")
    return nullptr;
  static const std::regex kTrue("true|True|TRUE" /* PyYAML also: yes/on */);
  static const std::regex kFalse("false|False|FALSE");
  if (std::regex_match(text, kTrue))
    return true;
  if (std::regex_match(text, kFalse))
    return false;
  if (yaml && (text == "yes" || text == "Yes" || text == "on" || text == "On"))
    return true;
  if (yaml && (text == "no" || text == "No" || text == "off" || text == "Off"))
    return false;
  static const std::regex kInt("[-+]?(0|[1-9][0-9_]*)");
  if (std::regex_match(text, kInt)) {
    std::string digits;
    for (char c : text)
      if (c != '_')
        digits += c;
    errno = 0;
    long long value = std::strtoll(digits.c_str(), nullptr, 10);
    if (errno == 0)
      return value;
  }
  static const std::regex kFloat("[-+]?([0-9][0-9_]*)?\\.[0-9_]*([eE][-+][0-9]+)?");
  if (std::regex_match(text, kFloat) ||
      (!yaml && std::regex_match(text, std::regex("[-+]?[0-9.]+([eE][-+]?[0-9]+)?")))) {
    std::string digits;
    for (char c : text)
      if (c != '_')
        digits += c;
    return std::strtod(digits.c_str(), nullptr);
  }
  return text;
}

class Converter {
public:
  explicit Converter(bool yaml) : yaml_(yaml) {}
  bool exhausted() const { return exhausted_; }

  nlohmann::ordered_json convert(const Node* node, int depth) {
    if (!node || exhausted_ || depth > kMaxNesting)
      return nullptr;
    if (++emitted_ > kMaxExpandedValues) {
      exhausted_ = true;
      return nullptr;
    }
    switch (node->kind) {
    case Node::Kind::Null:
      return nullptr;
    case Node::Kind::Scalar:
      return scalar(*node);
    case Node::Kind::Alias:
      return convert(node->target, depth + 1);
    case Node::Kind::Seq: {
      auto out = nlohmann::ordered_json::array();
      for (const auto& item : node->items)
        out.push_back(convert(item.get(), depth + 1));
      return out;
    }
    case Node::Kind::Map: {
      auto out = nlohmann::ordered_json::object();
      for (const auto& entry : node->entries) {
        if (entry.key == "<<" && !entry.quoted) {
          merge(out, entry.value.get(), depth + 1);
          continue;
        }
        out[entry.key] = convert(entry.value.get(), depth + 1);
      }
      return out;
    }
    }
    return nullptr;
  }

private:
  nlohmann::ordered_json scalar(const Node& node) const {
    switch (node.type) {
    case ScalarType::Untyped: // YAML / JSON: typed as PyYAML and json read it
      return node.quoted ? nlohmann::ordered_json(node.scalar) : plain_scalar(node.scalar, yaml_);
    case ScalarType::Int:
    case ScalarType::Float: // the reader wrote the literal's decimal digits
      return plain_scalar(node.scalar, /*yaml=*/false);
    case ScalarType::Bool:
      return node.scalar == "true";
    case ScalarType::Str:
    case ScalarType::Expression:
      return node.scalar;
    }
    return node.scalar;
  }

  // `<<: *a` or `<<: [*a, *b]`: keys not written in the mapping itself come from the merged
  // mappings (earlier ones first).
  void merge(nlohmann::ordered_json& into, const Node* value, int depth) {
    const Node* target = value && value->kind == Node::Kind::Alias ? value->target : value;
    if (!target)
      return;
    if (target->kind == Node::Kind::Seq) {
      for (const auto& item : target->items)
        merge(into, item.get(), depth + 1);
      return;
    }
    auto merged = convert(target, depth);
    if (!merged.is_object())
      return;
    for (auto& [key, v] : merged.items())
      if (!into.contains(key))
        into[key] = v;
  }

  bool yaml_;
  bool exhausted_ = false;
  std::size_t emitted_ = 0;
};

} // namespace

namespace {

std::optional<nlohmann::ordered_json> convert_tree(const detail::Tree& tree, Format format) {
  Converter converter(format == Format::Yaml);
  auto values = converter.convert(tree.root.get(), 0);
  if (converter.exhausted() || !values.is_object())
    return std::nullopt;
  return values;
}

} // namespace

std::optional<nlohmann::ordered_json> read_values(const std::string& text, Format format) {
  return convert_tree(scan_config_tree(text, format), format);
}

std::optional<nlohmann::ordered_json> read_values(const ConfigDocument& document) {
  if (!document.tree) // a document not made by read_config
    return read_values(document.text, document.format);
  return convert_tree(*document.tree, document.format);
}

} // namespace opscope::config
