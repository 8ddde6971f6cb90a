// tree-sitter's Python grammar as core/config's Python readers use it: one parser per thread
// with a time limit, node helpers, and Python literals read as Python reads them (strings with
// their escapes mapped to where each byte is written, numbers, True / False). Shared by the
// coreai-opt reader (python_reader.cpp) and the generic call reader (python_calls.cpp).
#pragma once

#include "opscope/config/scanner.h"

#include <tree_sitter/api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opscope::config::detail {

// A parse gives up after this long (tree-sitter's own clock): a hostile file costs a bounded
// time, and the document is then read as having no config.
inline constexpr std::uint64_t kParseTimeoutMicros = 2'000'000;

struct TreeDeleter {
  void operator()(TSTree* t) const { ts_tree_delete(t); }
};
using PythonTree = std::unique_ptr<TSTree, TreeDeleter>;

// `text` parsed with this thread's parser; null when the time limit ran out.
PythonTree parse_python(std::string_view text);

// The source of `n` in the parsed `text` (empty if its bytes lie outside it), and where it is
// written, clamped to the parsed text's size (which may extend `source`: python_calls.cpp
// parses a half-typed call with its closers added).
std::string_view text_of(std::string_view text, TSNode n);
Range range_of(const SourceText& source, TSNode n, std::size_t parsed_size);

bool is(TSNode n, const char* type);
TSNode field(TSNode n, const char* name);
// The named children of `n`, in order, comments left out.
std::vector<TSNode> named_children(TSNode n);

// A string literal's value as Python reads it, each byte mapped to where it is written.
struct StringLiteral {
  std::string value;
  std::vector<std::size_t> offsets; // plus one past the end
  std::size_t quote_begin = 0;      // the opening quote (after any prefix)
  std::size_t end = 0;
  char quote = '"';
  bool raw = false;
  bool formatted = false;
};
std::optional<StringLiteral> read_string(std::string_view text, TSNode node);

// A literal scalar: a string, a number (signed), True / False. Sets `node` (kind Scalar, typed);
// false when `n` is none of these (an f-string or bytes included).
bool python_literal(std::string_view text, TSNode n, Node& node);

// What closes the string and brackets still open at the end of Python `text` (comments skipped):
// `"])` after `f(x=["a`; empty when all are closed.
std::string closers(std::string_view text);

} // namespace opscope::config::detail
