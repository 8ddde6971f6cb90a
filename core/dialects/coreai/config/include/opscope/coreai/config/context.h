// What may be typed at a cursor position in a config: the input of completion.
#pragma once

#include "opscope/coreai/config/document.h"

#include <string>
#include <vector>

namespace opscope::config {

// The config class a mapping belongs to, for field-name completion.
enum class FieldLevel {
  Document,     // top level: quantization_config, quantization_spec, ...
  TopConfig,    // QuantizerConfig & co: global_config, module_name_configs, ...
  ModuleConfig, // ModuleQuantizerConfig & co: op_state_spec, op_name_config, ...
  OpConfig,     // OpQuantizerConfig & co: op_input_spec, op_output_spec, op_state_spec
};

struct CursorContext {
  enum class Kind {
    None,       // nothing we can help with (a comment, a spec value, unknown section)
    PatternKey, // a key of `table` in `scope`
    FieldName,  // a field of a config class (`fields` lists the valid ones)
    FieldValue, // the value of `field` (e.g. execution_mode)
  };
  Kind kind = Kind::None;
  Table table = Table::ModuleName;
  Scope scope;
  FieldLevel level = FieldLevel::Document;
  Compressor root = Compressor::None;
  std::string field;               // FieldValue: the field whose value is typed
  std::vector<std::string> fields; // FieldName: the names valid here
  std::vector<std::string> values; // FieldValue: the values valid here, if known
  // The whole key (or value) being typed, to be replaced by a completion:
  // includes an opened quote and, if present, its closing quote.
  Range replace;
  std::string typed; // what is typed before the cursor, quotes and escapes removed
  char quote = 0;    // the quote the user opened ('"' or '\''), 0 if none
  bool raw = false;  // Python: inside a raw string (PatternKey::raw)
  Format format = Format::Yaml;
};

// `document` must come from read_config (it re-reads document.text with a
// marker at the cursor, so every broken shape the reader tolerates is understood).
CursorContext context_at(const ConfigDocument& document, Position cursor);

// Field names valid at `level` for the compressor `root` implies (at the document level,
// every compressor's when Compressor::None).
std::vector<std::string> field_names(FieldLevel level, Compressor root);

} // namespace opscope::config
