// The cursor's context in a Python config: only inside a string that is (or is becoming) a
// pattern key. Elsewhere the user's Python tools answer, and opscope says nothing.
#include "context_detail.h"
#include "python_reader.h"

#include <algorithm>
#include <optional>

namespace opscope::config::detail {
namespace {

constexpr char kMarker = '\x1f';

// The quote of the single-line string the cursor is in on its line, if that string is not
// closed before the line ends (the user just typed `{"`): 0 when the cursor is not in a
// string, or the string is closed.
char unclosed_quote_at(std::string_view line, std::size_t cursor) {
  char quote = 0;
  bool raw = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (!quote) {
      if (i >= cursor)
        return 0;
      if (c == '#')
        return 0;
      if (c == '"' || c == '\'') {
        if (i + 2 < line.size() && line[i + 1] == c && line[i + 2] == c)
          return 0; // a triple-quoted string: the grammar reads it across lines
        quote = c;
        std::size_t p = i;
        raw = false;
        while (p > 0 && std::isalpha(static_cast<unsigned char>(line[p - 1]))) {
          raw |= (line[p - 1] | 0x20) == 'r';
          --p;
        }
      }
      continue;
    }
    if (c == '\\' && !raw) {
      ++i;
      continue;
    }
    if (c == quote) {
      if (i >= cursor)
        return 0; // closed after the cursor
      quote = 0;
    }
  }
  return quote;
}

// The brackets open at `end` (strings and comments skipped), innermost last.
std::string open_brackets(std::string_view text, std::size_t end) {
  std::string open;
  for (std::size_t i = 0; i < end && i < text.size(); ++i) {
    char c = text[i];
    if (c == '#') {
      while (i < end && text[i] != '\n')
        ++i;
    } else if (c == '"' || c == '\'') {
      bool raw = i > 0 && (text[i - 1] | 0x20) == 'r';
      bool triple = i + 2 < text.size() && text[i + 1] == c && text[i + 2] == c;
      i += triple ? 3 : 1;
      for (; i < end; ++i) {
        if (text[i] == '\\' && !raw) {
          ++i;
        } else if (!triple && text[i] == '\n') {
          break;
        } else if (text[i] == c &&
                   (!triple || (i + 2 < text.size() && text[i + 1] == c && text[i + 2] == c))) {
          i += triple ? 2 : 0;
          break;
        }
      }
    } else if (c == '(' || c == '[' || c == '{') {
      if (open.size() < static_cast<std::size_t>(kMaxNesting))
        open += c;
    } else if ((c == ')' || c == ']' || c == '}') && !open.empty()) {
      open.pop_back();
    }
  }
  return open;
}

std::optional<PatternKey> marked_key(std::string marked) {
  ConfigDocument scratch = read_config(std::move(marked), Format::Python);
  for (PatternKey& key : scratch.keys)
    if (key.quoted && key.text.find(kMarker) != std::string::npos)
      return std::move(key);
  return std::nullopt;
}

Range unmark(Range range, Position marker) {
  auto fix = [&](Position p) {
    if (p.line == marker.line && p.byte_col > marker.byte_col)
      --p.byte_col;
    return p;
  };
  return {fix(range.start), fix(range.end)};
}

bool holds_marker(const Node& node, std::string_view marker, int depth = 0) {
  if (depth > kMaxNesting)
    return false;
  if (node.scalar.find(marker) != std::string::npos)
    return true;
  for (const Entry& e : node.entries)
    if (e.key.find(marker) != std::string::npos ||
        (e.value && holds_marker(*e.value, marker, depth + 1)))
      return true;
  for (const auto& item : node.items)
    if (holds_marker(*item, marker, depth + 1))
      return true;
  return false;
}

} // namespace

Tree python_scan_marked(std::string_view text, std::size_t offset, std::string_view marker) {
  SourceText original(text);
  Position cursor = original.position(offset);
  std::size_t line_begin = original.line_start(static_cast<std::size_t>(cursor.line));
  std::size_t line_end = text.find('\n', line_begin);
  if (line_end == std::string_view::npos)
    line_end = text.size();
  char unclosed =
      unclosed_quote_at(text.substr(line_begin, line_end - line_begin), offset - line_begin);
  std::string marked(text);
  marked.insert(offset, marker);
  if (unclosed)
    marked.insert(offset + marker.size(), 1, unclosed);
  Tree tree = scan_python(SourceText(marked)).tree;
  if (tree.root && holds_marker(*tree.root, marker))
    return tree;
  // The statement is still open: read it up to the cursor's line end, closed.
  marked.resize(line_end + marker.size() + (unclosed ? 1 : 0));
  std::string closers = open_brackets(marked, marked.size());
  for (auto it = closers.rbegin(); it != closers.rend(); ++it)
    marked += *it == '(' ? ')' : *it == '[' ? ']' : '}';
  marked += '\n';
  return scan_python(SourceText(marked)).tree;
}

CursorContext python_context_by_marker(const ConfigDocument& document, Position cursor) {
  CursorContext ctx;
  ctx.format = Format::Python;
  SourceText original(document.text);
  std::size_t offset = original.offset(cursor);
  cursor = original.position(offset);
  std::size_t line_begin = original.line_start(static_cast<std::size_t>(cursor.line));
  std::size_t line_end = document.text.find('\n', line_begin);
  if (line_end == std::string::npos)
    line_end = document.text.size();
  std::string_view line(document.text.data() + line_begin, line_end - line_begin);
  char unclosed = unclosed_quote_at(line, offset - line_begin);

  std::string marked = document.text;
  // Closing a string the user is still typing lets the grammar read the call around it.
  marked.insert(offset, 1, kMarker);
  if (unclosed)
    marked.insert(offset + 1, 1, unclosed);
  std::optional<PatternKey> key = marked_key(marked);
  if (!key) {
    // The statement is still open (`c = QuantizerConfig(module_name_configs={"lay`): read it
    // up to the cursor's line end, closed, which is all the context needs.
    marked.resize(line_end + (unclosed ? 2 : 1));
    std::string closers = open_brackets(marked, marked.size());
    for (auto it = closers.rbegin(); it != closers.rend(); ++it)
      marked += *it == '(' ? ')' : *it == '[' ? ']' : '}';
    marked += '\n';
    key = marked_key(std::move(marked));
  }
  if (key) {
    auto at = key->text.find(kMarker);
    ctx.kind = CursorContext::Kind::PatternKey;
    ctx.table = key->table;
    ctx.scope = key->scope;
    ctx.scope.key_range = unmark(ctx.scope.key_range, cursor);
    ctx.replace = unmark(key->range, cursor);
    if (unclosed && ctx.replace.end.line == cursor.line)
      --ctx.replace.end.byte_col; // the closing quote we added is not in the document
    ctx.typed = key->text.substr(0, at);
    ctx.quote = key->quote;
    ctx.raw = key->raw;
  }
  return ctx;
}

} // namespace opscope::config::detail
