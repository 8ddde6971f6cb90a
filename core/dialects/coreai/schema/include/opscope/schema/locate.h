// Where a cursor is in coreai-opt's models: the model whose key is being typed (for key
// completion), the field whose value is being typed (for value completion), or the field a
// written key or value belongs to (for hover). Found by following the schema's types down the
// config's tree, through anchors and merges.
#pragma once

#include "opscope/coreai/config/document.h"
#include "opscope/schema/schema.h"

#include <optional>
#include <string>
#include <vector>

namespace opscope::schema {

struct Location {
  enum class Kind { Key, Value };
  Kind kind = Kind::Key;
  // Key: the model the mapping is an instance of (null inside a dict: free keys);
  // Value: the model the field belongs to.
  const Model* model = nullptr;
  const Field* field = nullptr;        // Value: the field; Key (hover): the field the key names
  std::vector<std::string> present;    // Key: keys already written in the mapping
  std::vector<std::string> extra_keys; // Key: keys beside the model's fields (a registry's `type`)
  // Value of a registry's `type` (field is null): the registered names, and the base class.
  std::vector<std::string> registry_keys;
  std::string registry_base;
  bool keyword = false; // Key, Python: a class call's keyword argument (`name=`), not a dict key
  config::Range range;  // the key or value written (the marker removed)
  std::string typed;    // what is typed before the cursor
};

// For completion: re-reads the document with a marker at the cursor, so a key or value
// being typed on an otherwise empty line is found too. `expected_root` as in check().
std::optional<Location> locate_for_completion(const config::ConfigDocument& document,
                                              config::Position cursor, const Schema& schema,
                                              std::string_view expected_root = {});

// For hover: the key or value written under the cursor.
std::optional<Location> locate_written(const config::ConfigDocument& document,
                                       config::Position cursor, const Schema& schema);

// The values a field takes that can be offered: enum values, literals, registry keys,
// booleans, and `null` when the field accepts it.
std::vector<std::string> value_choices(const Type& type);

} // namespace opscope::schema
