// A coreai-opt compression config (YAML, JSON, or the config calls of a Python file) read the way
// an editor sees it: half-typed and often invalid. The reader never fails; it keeps every pattern
// key it can recognise, with its table, its scope and its exact range, so completion, hover and
// diagnostics work on documents no strict YAML or JSON parser would accept. No LibTorch, no LSP
// types: positions are 0-based lines and byte columns (the protocol layer converts to UTF-16).
// The scanners under it are every library's (core/config); this reading is coreai-opt's.
#pragma once

#include "opscope/config/positions.h"
#include "opscope/coreai/compressors.h"
#include "opscope/coreai/tables.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace opscope::config {

namespace detail {
struct Tree;
}
using detail::Tree;

// A config's top-level key names its compressor (coreai::find_by_root_key); the four
// tables whose keys name parts of the model are coreai-opt's (opscope/coreai/tables.h).
using coreai::Compressor;
using coreai::Table;

// Where a pattern key sits: op tables inside global_config, inside a
// module_type_configs entry, or inside a module_name_configs entry.
struct Scope {
  enum class Kind { Global, ModuleType, ModuleName };
  Kind kind = Kind::Global;
  std::string key; // the enclosing module type / module-name pattern (unquoted)
  Range key_range; // its range, for messages; empty for Global
  bool operator==(const Scope& o) const { return kind == o.kind && key == o.key; }
};

struct PatternKey {
  Table table = Table::ModuleName;
  Scope scope;
  std::string text; // the key as the user means it (quotes removed, escapes applied)
  Range range;      // the key as written, quotes included
  bool quoted = false;
  char quote = 0; // '"' or '\'' when quoted
  // byte_cols[i]: column of text[i] on range.start.line; byte_cols[text.size()] is the
  // column just past the last character. Lets a regex error offset point at the
  // right column even through escapes.
  std::vector<int> byte_cols;
  // True when the key is reached through a YAML alias or merge (`*spec`, `<<: *spec`):
  // it is written elsewhere (range) but applies where it is merged (scope).
  bool via_alias = false;
  // Python: a raw string (r"layer1\..*"); the range starts at the quote, after the prefix,
  // so a completion or fix keeps the prefix and writes no escapes.
  bool raw = false;
  // The value is null (`key:`, `key: null`, `~`): coreai-opt leaves what this entry governs
  // in full precision (its _normalize_none_* validators turn None into disabled specs).
  bool null_value = false;
  // The config object the key belongs to (ConfigDocument::objects): a Python file may build
  // several, each resolved on its own; YAML and JSON hold one (0).
  int config_object = 0;
};

// One config object: a YAML or JSON document, or in Python a config class call or from_dict
// together with the setters called on it (through its variable or a call chain).
struct ConfigObject {
  std::optional<Range> global_config_range; // its `global_config`, when written
  bool global_config_null = false;
};

struct DuplicateKey {
  std::string key;
  Range first;     // where the key first appears
  Range duplicate; // the later occurrence, which wins in coreai-opt (PyYAML/json keep the last)
};

// A key coreai-opt does not accept where it is written (its pydantic models
// forbid extra fields): usually a typo such as `module_name_config`.
struct UnknownField {
  std::string name;
  Range range;
  std::string where;              // "quantization_config", "a module config", ...
  std::vector<std::string> valid; // the field names accepted there
};

// Python: a place where a name reaches a config but is not a string literal opscope can read
// (an f-string, a variable, a class it cannot name). Reported, not guessed.
struct UncheckedName {
  Range range;
  std::string what; // "an f-string", "a variable", ...
};

struct ConfigDocument {
  Format format = Format::Yaml;
  std::string text;                   // the source, kept for context_at
  Compressor root = Compressor::None; // named by the root key
  Range root_range;
  std::optional<std::string> execution_mode; // "graph" / "eager" / whatever was written
  Range execution_mode_range;
  std::vector<PatternKey> keys; // in document order (aliased keys where they are merged)
  // `global_config` under the root, when written (absent: coreai-opt's default config); the
  // first object's (Python: see `objects`).
  std::optional<Range> global_config_range;
  bool global_config_null = false; // written with a null value: nothing is compressed globally
  // Every config object, in the order first written; at least one. PatternKey::config_object
  // indexes it.
  std::vector<ConfigObject> objects{1};
  std::vector<DuplicateKey> duplicates;
  std::vector<SyntaxProblem> problems;
  std::vector<UnknownField> unknown_fields;
  // The scanned tree (values too), for core/dialects/coreai/schema's check of every key and value.
  std::shared_ptr<const detail::Tree> tree;
  std::vector<UncheckedName> unchecked; // Python only
  // Python: the lines [first, last] of each statement holding a config call, so that an edit
  // on another line that cannot open a string, bracket or comment keeps this read.
  std::vector<std::pair<int, int>> config_lines;
};

// Reads `text` as `format`; never throws.
ConfigDocument read_config(std::string text, Format format);

// `text` read as a tree alone (no classification): YAML and JSON as core/config scans them,
// Python as the tree of its coreai-opt config calls (python_reader.cpp).
Tree scan_config_tree(std::string_view text, Format format);

// The document re-read with `marker` written at `cursor`, so that a key or value being typed is
// in the tree with the marker in its text. Python: the marker must be a valid identifier (it
// may be a keyword argument's name being typed); the string the cursor is in is closed, and when
// that leaves the marker outside any config, the statement is cut after the cursor's line and
// its brackets closed. `cursor` past its line's end moves to that end and is updated.
Tree scan_marked(const ConfigDocument& document, Position& cursor, std::string_view marker);

} // namespace opscope::config
