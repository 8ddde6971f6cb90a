// The generic tree the scanners produce: mappings, sequences, scalars and aliases with exact
// ranges, values included. Every dialect reads its YAML and JSON through it (PEFT,
// llm-compressor, coreai-opt's ConfigDocument::tree, which core/dialects/coreai/schema checks);
// coreai-opt's Python reader builds one from config calls.
#pragma once

#include "opscope/config/positions.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace opscope::config::detail {

struct Node;

// A Python scalar's type, known from the literal written (Python configs only). YAML and JSON
// scalars are Untyped: core/dialects/coreai/schema types them as PyYAML and json do. Expression: a
// value the reader does not evaluate (`torch.int8`, a variable, an f-string): never checked.
enum class ScalarType { Untyped, Str, Int, Float, Bool, Expression };

struct Entry {
  std::string key; // unquoted, unescaped
  Range key_range; // as written, quotes included
  bool quoted = false;
  char quote = 0;
  std::vector<int> key_cols; // see PatternKey::byte_cols
  bool raw = false;          // see PatternKey::raw
  bool has_colon = false;
  ScalarType key_type = ScalarType::Untyped; // Python: Str, or Int for `{0: ...}`
  std::unique_ptr<Node> value;               // null when nothing follows the key
};

struct Node {
  enum class Kind { Null, Scalar, Map, Seq, Alias };
  Kind kind = Kind::Null;
  Range range;
  std::string scalar; // Scalar: the value, unquoted (Python Int / Float: decimal digits)
  bool quoted = false;
  ScalarType type = ScalarType::Untyped;
  std::string alias_name;       // Alias: the name after '*'
  const Node* target = nullptr; // Alias: the anchored node, null if the anchor is unknown
  std::vector<Entry> entries;   // Map
  std::vector<std::unique_ptr<Node>> items; // Seq
  // Python: a Map made of a class call's keyword arguments names the class
  // (`ModuleQuantizerConfig`, `QuantizationSpec`); empty for a dict.
  std::string model;
  // Python: entries were passed that the reader cannot read (`**kwargs`, a computed key), so
  // what is missing from the Map is unknown.
  bool partial = false;
  // Python: on a top config (a root key's value), the config object it builds or changes
  // (ConfigDocument::objects); 0 in YAML and JSON.
  int config_object = 0;
};

// Python: `X.from_dict(document)` checks its document as from_yaml does; its entries are
// the root's [first, first + count), and X's config key is the one it requires.
struct FromDict {
  std::size_t first = 0;
  std::size_t count = 0;
  std::string config_key;
  Range range; // the call, for a missing config key
};

struct Tree {
  std::unique_ptr<Node> root;
  std::vector<SyntaxProblem> problems;
  // Nodes read but not part of the tree (a collection used as a key) that an anchor may
  // name: kept alive while aliases can point at them.
  std::vector<std::unique_ptr<Node>> detached;
  std::vector<FromDict> from_dict; // Python only
};

} // namespace opscope::config::detail

namespace opscope::config {

using detail::Entry;
using detail::FromDict;
using detail::Node;
using detail::ScalarType;
using detail::Tree;

// `text` read as a YAML (or JSON) tree. Python is no tree of its own: a dialect reads its
// calls (python_calls.h), and `Format::Python` here yields an empty mapping.
Tree scan_tree(std::string_view text, Format format);

} // namespace opscope::config
