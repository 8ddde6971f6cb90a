#include "opscope/config/python_syntax.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

extern "C" const TSLanguage* tree_sitter_python();

namespace opscope::config::detail {
std::string_view text_of(std::string_view text, TSNode n) {
  std::size_t b = ts_node_start_byte(n), e = ts_node_end_byte(n);
  return e <= text.size() && b <= e ? text.substr(b, e - b) : std::string_view();
}

Range range_of(const SourceText& source, TSNode n, std::size_t parsed_size) {
  return source.range(std::min<std::size_t>(ts_node_start_byte(n), parsed_size),
                      std::min<std::size_t>(ts_node_end_byte(n), parsed_size));
}

namespace {

struct ParserDeleter {
  void operator()(TSParser* p) const { ts_parser_delete(p); }
};

// One parser per thread: creating one costs more than parsing a small file.
TSParser* thread_parser() {
  thread_local std::unique_ptr<TSParser, ParserDeleter> parser = [] {
    std::unique_ptr<TSParser, ParserDeleter> p(ts_parser_new());
    ts_parser_set_language(p.get(), tree_sitter_python());
    ts_parser_set_timeout_micros(p.get(), kParseTimeoutMicros);
    return p;
  }();
  return parser.get();
}

std::size_t utf8_encode(std::uint32_t cp, char* out) {
  if (cp < 0x80) {
    out[0] = static_cast<char>(cp);
    return 1;
  }
  if (cp < 0x800) {
    out[0] = static_cast<char>(0xC0 | (cp >> 6));
    out[1] = static_cast<char>(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = static_cast<char>(0xE0 | (cp >> 12));
    out[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out[2] = static_cast<char>(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = static_cast<char>(0xF0 | (cp >> 18));
  out[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
  out[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
  out[3] = static_cast<char>(0x80 | (cp & 0x3F));
  return 4;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

// A number literal as decimal text (underscores dropped, 0x / 0o / 0b converted); nullopt for
// what strtod would not read as Python does (a complex `1j`).
std::optional<std::string> number_text(std::string_view written, bool integer) {
  std::string digits;
  for (char c : written)
    if (c != '_')
      digits += c;
  if (digits.empty() || digits.back() == 'j' || digits.back() == 'J')
    return std::nullopt;
  if (!integer)
    return digits;
  int base = 10;
  if (digits.size() > 2 && digits[0] == '0') {
    char p = static_cast<char>(digits[1] | 0x20);
    base = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 10;
  }
  if (base == 10)
    return digits;
  double v = 0;
  for (std::size_t i = 2; i < digits.size(); ++i) {
    int d = hex_value(digits[i]);
    if (d < 0 || d >= base)
      return std::nullopt;
    v = v * base + d;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return std::string(buf);
}

} // namespace

PythonTree parse_python(std::string_view text) {
  TSParser* parser = thread_parser();
  PythonTree tree(
      ts_parser_parse_string(parser, nullptr, text.data(), static_cast<uint32_t>(text.size())));
  if (!tree)
    ts_parser_reset(parser); // timed out: the next parse starts afresh
  return tree;
}

bool is(TSNode n, const char* type) {
  return !ts_node_is_null(n) && !std::strcmp(ts_node_type(n), type);
}

TSNode field(TSNode n, const char* name) {
  return ts_node_child_by_field_name(n, name, static_cast<uint32_t>(std::strlen(name)));
}

// The named children of `n`, in order (a cursor: ts_node_child(i) walks from the start).
std::vector<TSNode> named_children(TSNode n) {
  std::vector<TSNode> out;
  TSTreeCursor cursor = ts_tree_cursor_new(n);
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    do {
      TSNode child = ts_tree_cursor_current_node(&cursor);
      if (ts_node_is_named(child) && !is(child, "comment"))
        out.push_back(child);
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
  return out;
}

std::optional<StringLiteral> read_string(std::string_view text, TSNode node) {
  std::size_t begin = ts_node_start_byte(node), end = ts_node_end_byte(node);
  if (end > text.size() || begin >= end)
    return std::nullopt;
  std::size_t quote_at = begin;
  while (quote_at < end && text[quote_at] != '"' && text[quote_at] != '\'')
    ++quote_at;
  if (quote_at == end)
    return std::nullopt;
  StringLiteral s;
  s.quote_begin = quote_at;
  s.end = end;
  s.quote = text[quote_at];
  for (std::size_t i = begin; i < quote_at; ++i) {
    char c = static_cast<char>(text[i] | 0x20);
    s.raw |= c == 'r';
    s.formatted |= c == 'f' || c == 't';
  }
  std::size_t quotes = 1;
  if (end - quote_at >= 6 && text[quote_at + 1] == s.quote && text[quote_at + 2] == s.quote)
    quotes = 3;
  std::size_t content = quote_at + quotes;
  std::size_t content_end = end;
  // Closed: drop the closing quotes (an unterminated string ends where tree-sitter ended it).
  std::size_t closing = 0;
  while (closing < quotes && content_end > content && text[content_end - 1] == s.quote) {
    --content_end;
    ++closing;
  }
  if (closing < quotes) { // the quote was part of the value, not a closing one
    content_end += closing;
  }
  for (std::size_t i = content; i < content_end;) {
    char c = text[i];
    if (c != '\\' || s.raw || i + 1 >= content_end) {
      s.value += c;
      s.offsets.push_back(i++);
      continue;
    }
    char e = text[i + 1];
    auto put = [&](std::string_view bytes, std::size_t length) {
      for (char b : bytes) {
        s.value += b;
        s.offsets.push_back(i);
      }
      i += length;
    };
    static constexpr std::string_view kSimple = "\\'\"abfnrtv";
    static constexpr std::string_view kValues = "\\'\"\a\b\f\n\r\t\v";
    if (e == '\n') {
      i += 2; // a line continuation
    } else if (auto at = kSimple.find(e); at != std::string_view::npos) {
      put(kValues.substr(at, 1), 2);
    } else if (e == 'x' || e == 'u' || e == 'U') {
      std::size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
      std::uint32_t cp = 0;
      std::size_t n = 0;
      while (n < digits && i + 2 + n < content_end && hex_value(text[i + 2 + n]) >= 0)
        cp = cp * 16 + static_cast<std::uint32_t>(hex_value(text[i + 2 + (n++)]));
      if (n < digits || cp > 0x10FFFF) {
        put(text.substr(i, 2), 2); // invalid: Python refuses it; kept as written
      } else {
        char buf[4];
        put(std::string_view(buf, utf8_encode(cp, buf)), 2 + digits);
      }
    } else if (e >= '0' && e <= '7') {
      std::uint32_t cp = 0;
      std::size_t n = 0;
      while (n < 3 && i + 1 + n < content_end && text[i + 1 + n] >= '0' && text[i + 1 + n] <= '7')
        cp = cp * 8 + static_cast<std::uint32_t>(text[i + 1 + (n++)] - '0');
      char buf[4];
      put(std::string_view(buf, utf8_encode(cp, buf)), 1 + n);
    } else {
      put(text.substr(i, 2), 2); // `\.` stays `\.` (Python warns, keeps both)
    }
  }
  s.offsets.push_back(content_end);
  return s;
}

bool python_literal(std::string_view text, TSNode n, Node& node) {
  node.kind = Node::Kind::Scalar;
  node.quoted = true; // not YAML: never read as null
  if (is(n, "string")) {
    std::optional<StringLiteral> s = read_string(text, n);
    if (!s || s->formatted ||
        text_of(text, n).find_first_of("bB") < s->quote_begin - ts_node_start_byte(n))
      return false; // an f-string or bytes: an expression
    node.scalar = std::move(s->value);
    node.type = ScalarType::Str;
    return true;
  }
  if (is(n, "true") || is(n, "false")) {
    node.scalar = is(n, "true") ? "true" : "false";
    node.type = ScalarType::Bool;
    return true;
  }
  std::string sign;
  TSNode number = n;
  if (is(n, "unary_operator") && ts_node_named_child_count(n) == 1) {
    std::string_view op = text_of(text, field(n, "operator"));
    number = ts_node_named_child(n, 0);
    if (op != "-" && op != "+")
      return false;
    sign = op == "-" ? "-" : "";
  }
  bool integer = is(number, "integer");
  if (!integer && !is(number, "float"))
    return false;
  std::optional<std::string> digits = number_text(text_of(text, number), integer);
  if (!digits)
    return false;
  node.scalar = sign + *digits;
  node.type = integer ? ScalarType::Int : ScalarType::Float;
  return true;
}

std::string closers(std::string_view text) {
  std::string open;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '#') {
      i = text.find('\n', i);
      if (i == std::string_view::npos)
        break;
    } else if (c == '"' || c == '\'') {
      bool triple = text.substr(i, 3) == std::string(3, c);
      std::string_view end = triple ? text.substr(i, 3) : text.substr(i, 1);
      std::size_t at = i + end.size();
      while (at < text.size() && text.substr(at, end.size()) != end && (triple || text[at] != '\n'))
        at += text[at] == '\\' ? 2 : 1;
      if (at >= text.size())
        return std::string(end) + std::string(open.rbegin(), open.rend());
      i = at + end.size() - 1;
    } else if (c == '(' || c == '[' || c == '{') {
      open += c == '(' ? ')' : c == '[' ? ']' : '}';
    } else if ((c == ')' || c == ']' || c == '}') && !open.empty()) {
      open.pop_back();
    }
  }
  return std::string(open.rbegin(), open.rend());
}

} // namespace opscope::config::detail
