// What every config reader shares, whatever the library: where something is written (0-based
// lines and byte columns; the protocol layer converts to UTF-16), the file's format, a problem
// a strict loader would refuse, and the limits every reader keeps on hostile input.
#pragma once

#include <cstddef>
#include <string>

namespace opscope::config {

struct Position {
  int line = 0;     // 0-based
  int byte_col = 0; // 0-based, in bytes of the line
  auto operator<=>(const Position&) const = default;
};

struct Range {
  Position start;
  Position end; // exclusive
  bool operator==(const Range&) const = default;
  bool contains(Position p) const { return start <= p && p <= end; }
};

// Python: the config calls of a training script, read by the library's dialect
// (python_calls.h, or coreai-opt's python_reader.cpp).
enum class Format { Yaml, Json, Python };

// Picks the format from the file name (.json -> Json, .py -> Python, else Yaml), falling back to
// the content (a document starting with `{` is JSON).
Format guess_format(const std::string& path, const std::string& text);

// A syntax problem the strict loader (PyYAML / json) would reject, or a limit the
// reader enforces on hostile input (nesting depth, alias expansion).
struct SyntaxProblem {
  Range range;
  std::string message;
  std::string code = "syntax"; // stable id: "syntax", "too-deep", "alias-expansion"
};

// Deeper than any config needs (coreai-opt's need about 6 levels): the readers stop here, so a
// hostile `x: [[[[...` is one diagnostic instead of a stack overflow.
inline constexpr int kMaxNesting = 256;
// YAML aliases and merge keys (`<<: [*a, *a]`) may expand to at most this many entries
// beyond those written (a "billion laughs" document stops here, with one diagnostic).
inline constexpr std::size_t kMaxAliasedEntries = 100'000;

} // namespace opscope::config
