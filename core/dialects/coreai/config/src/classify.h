// Reads coreai-opt meaning into a scanned tree: which keys are pattern keys,
// of which table, in which scope; which are config fields, at which level.
#pragma once

#include "opscope/coreai/config/context.h"
#include "python_reader.h"

#include <functional>

namespace opscope::config::detail {

struct EntryRole {
  enum class Kind { Field, PatternKey };
  Kind kind = Kind::Field;
  FieldLevel level = FieldLevel::Document; // Field: the class the entry is a field of
  Compressor root = Compressor::None;
  Table table = Table::ModuleName; // PatternKey
  Scope scope;                     // PatternKey
  bool via_alias = false;
};

using EntryVisitor = std::function<void(const Entry&, const EntryRole&)>;

// Fills document.root, execution_mode and keys, and calls `visit` (if set) for
// every entry whose role is known, including entries reached through aliases.
void classify(const Node& root, ConfigDocument& document, const EntryVisitor& visit);

// Every key written twice in one mapping (merged keys do not count).
void find_duplicates(const Node& node, std::vector<DuplicateKey>& out);

} // namespace opscope::config::detail
