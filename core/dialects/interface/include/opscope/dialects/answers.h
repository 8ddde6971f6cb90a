// What any dialect answers with, and what the engine shows (the editor in LSP terms, `check` as
// lines and SARIF): plain structs in config positions (0-based lines, byte columns), no LSP.
// One set of types for every library, so the faces convert once.
#pragma once

#include "opscope/config/positions.h"

#include <cstddef>
#include <string>
#include <vector>

namespace opscope::dialects {

enum class Severity { Error, Warning, Information };

// "error", "warning", "note": as compilers print them.
inline const char* to_string(Severity severity) {
  switch (severity) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Information:
    return "note";
  }
  return "";
}

// A replacement of `range` by `new_text` in the config document.
struct TextEdit {
  config::Range range;
  std::string new_text;
};

struct Fix {
  std::string title; // "Replace with `layer1.*`"
  TextEdit edit;
  bool replacement = true; // the edit replaces the key by a name (false: it moves an entry)
};

struct Diagnostic {
  config::Range range;
  Severity severity = Severity::Warning;
  std::string code; // stable id ("syntax", "no-match", ...): users and tests filter on it
  std::string message;
  std::vector<Fix> fixes;
};

// Why there is no model to check against, said once at the top of the config.
struct ModelProblem {
  std::string message; // why, and what to do
  Severity severity = Severity::Warning;
  std::string code = "no-model"; // "untrusted-project": opscope would not run the project's code
};

struct Hover {
  std::string markdown; // the text to show
  config::Range range;  // what is hovered
};

struct CompletionItem {
  enum class Kind { Module, ModuleType, Op, OpType, Field, Value };
  Kind kind = Kind::Module;
  std::string label;         // the plain name ("layer1.0.conv1")
  std::string filter_text;   // what the editor filters on: the key as written, not closed
  std::string detail;        // module type, op type + module, occurrence count, ...
  std::string sort_text;     // keeps model order
  TextEdit edit;             // replaces the whole name being typed (opened quote included)
  std::string documentation; // markdown (the library's own docs for schema items); may be empty
};

struct CompletionList {
  // True when items were capped or the model is not loaded yet: the editor must
  // ask again as the user types.
  bool is_incomplete = false;
  std::vector<CompletionItem> items;
};

struct CompletionOptions {
  std::size_t max_items = 200;
};

// A line of text shown above a range of the config (LSP: a code lens with no command).
struct CodeLens {
  config::Range range;
  std::string title;
};

// A line in the model's Python source.
struct SourceLocation {
  std::string file;
  int line = 0; // 1-based, as in tracebacks
};

} // namespace opscope::dialects
