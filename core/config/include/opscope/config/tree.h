// The generic tree both scanners produce: mappings, sequences, scalars and aliases with exact
// ranges, values included (ConfigDocument::tree). Read by core/schema to check and complete
// every key and value; built only by core/config's readers.
#pragma once

#include "opscope/config/document.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace opscope::config::detail {

struct Node;

struct Entry {
  std::string key; // unquoted, unescaped
  Range key_range; // as written, quotes included
  bool quoted = false;
  char quote = 0;
  std::vector<int> key_cols; // see PatternKey::byte_cols
  bool raw = false;          // see PatternKey::raw
  bool has_colon = false;
  std::unique_ptr<Node> value; // null when nothing follows the key
};

struct Node {
  enum class Kind { Null, Scalar, Map, Seq, Alias };
  Kind kind = Kind::Null;
  Range range;
  std::string scalar; // Scalar: the value, unquoted
  bool quoted = false;
  std::string alias_name;       // Alias: the name after '*'
  const Node* target = nullptr; // Alias: the anchored node, null if the anchor is unknown
  std::vector<Entry> entries;   // Map
  std::vector<std::unique_ptr<Node>> items; // Seq
};

struct Tree {
  std::unique_ptr<Node> root;
  std::vector<SyntaxProblem> problems;
  // Nodes read but not part of the tree (a collection used as a key) that an anchor may
  // name: kept alive while aliases can point at them.
  std::vector<std::unique_ptr<Node>> detached;
};

} // namespace opscope::config::detail

namespace opscope::config {

using detail::Entry;
using detail::Node;
using detail::Tree;

// `text` read as a YAML or JSON tree alone (no classification): for re-reading a document
// with a marker at the cursor. Python is read as YAML is not: it has no such tree.
Tree scan_tree(std::string_view text, Format format);

} // namespace opscope::config
